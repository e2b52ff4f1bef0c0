import { FallbackConfigError } from "./errors.js";

/** A node's ordered fallbacks: a function, a Map or a plain record. */
export type FallbacksOf =
  | ((endpoint: string) => readonly string[] | undefined)
  | ReadonlyMap<string, readonly string[]>
  | Readonly<Record<string, readonly string[] | undefined>>;

/** Only a node's first fallbacks are followed, so one long list cannot take over the chain. */
export const MAX_FALLBACKS_PER_NODE = 5;

function lookup(fallbacksOf: FallbacksOf, endpoint: string): readonly string[] {
  if (typeof fallbacksOf === "function") return fallbacksOf(endpoint) ?? [];
  if (fallbacksOf instanceof Map) return fallbacksOf.get(endpoint) ?? [];
  const record = fallbacksOf as Readonly<Record<string, readonly string[] | undefined>>;
  return Object.hasOwn(record, endpoint) ? (record[endpoint] ?? []) : [];
}

/**
 * The candidates in order: pre-order depth-first from `primary` (a fallback's own fallbacks before its
 * next sibling), each node's list cut to its first 5, nodes already listed skipped (cycles cut), at most
 * max(maxHops, 1) entries including the primary.
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
