import { FallbackConfigError } from "./errors.js";

/** A node's fallbacks: a list of names (a single name is read as a list of one), or none. */
export type FallbackList = readonly string[] | string | undefined;

/** A node's ordered fallbacks: a function, a Map or a plain record. */
export type FallbacksOf =
  | ((endpoint: string) => FallbackList)
  | ReadonlyMap<string, FallbackList>
  | Readonly<Record<string, FallbackList>>;

/** Only a node's first fallbacks are followed, so one long list cannot take over the chain. */
export const MAX_FALLBACKS_PER_NODE = 5;

function lookup(fallbacksOf: FallbacksOf, endpoint: string): readonly string[] {
  let list: unknown;
  if (typeof fallbacksOf === "function") list = fallbacksOf(endpoint);
  else if (fallbacksOf instanceof Map) list = fallbacksOf.get(endpoint);
  else {
    const record = fallbacksOf as Readonly<Record<string, FallbackList>>;
    list = Object.hasOwn(record, endpoint) ? record[endpoint] : undefined;
  }
  if (list == null) return [];
  // a string is one name; iterating it would walk its letters
  if (typeof list === "string") return [list];
  if (Array.isArray(list) && list.every((x) => typeof x === "string")) return list;
  throw new FallbackConfigError(
    `fallbacks of ${JSON.stringify(endpoint)}`,
    "must be a list of names, one name, or nothing",
  );
}

/**
 * The candidates in order: pre-order depth-first from `primary` (a fallback's own fallbacks before its
 * next sibling), each node's list cut to its first 5, nodes already listed skipped (cycles cut), at most
 * max(maxHops, 1) entries including the primary. Throws `FallbackConfigError` for a NaN `maxHops` or a
 * node whose fallbacks are neither a list of names, one name, nor nothing.
 */
export function expand(primary: string, fallbacksOf: FallbacksOf, maxHops: number): string[] {
  if (Number.isNaN(maxHops)) throw new FallbackConfigError("maxHops", "must be a number");
  const limit = Math.max(Math.floor(maxHops), 1);
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [primary];
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    const next = lookup(fallbacksOf, node).slice(0, MAX_FALLBACKS_PER_NODE);
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return out;
}
