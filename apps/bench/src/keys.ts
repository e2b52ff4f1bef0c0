/** Subjects shared by every variant of a scenario, built once so no variant pays for string building. */
export function makeKeys(count: number, prefix = "k"): string[] {
  const keys: string[] = new Array(count);
  for (let i = 0; i < count; i++) keys[i] = `${prefix}${i}`;
  return keys;
}

/**
 * The walk over many keys of @resil/limit docs/protocol.md#s6: caller t at step i uses key (i * 7 + t * 13) mod count. Kept as a
 * cursor (add, compare) so the walk itself costs next to nothing; one key is the hot-key case.
 */
export class KeyWalk {
  private idx: number;
  private readonly stride: number;
  private readonly len: number;

  constructor(
    readonly keys: readonly string[],
    caller = 0,
  ) {
    this.len = keys.length;
    this.stride = 7 % this.len;
    this.idx = (caller * 13) % this.len;
  }

  next(): string {
    const k = this.keys[this.idx]!;
    this.idx += this.stride;
    if (this.idx >= this.len) this.idx -= this.len;
    return k;
  }
}

/** One cursor per caller. */
export function walks(keys: readonly string[], callers: number): KeyWalk[] {
  const out: KeyWalk[] = [];
  for (let t = 0; t < callers; t++) out.push(new KeyWalk(keys, t));
  return out;
}

/** Limits high enough that every request is admitted (the hot path, never the deny path, is measured). */
export const HUGE_LIMIT = 2_000_000_000;

/** Concurrent async callers in the hot-key and many-key scenarios. */
export const CALLERS = 16;

/** Runs `n` operations split over `callers` concurrent async loops; each loop returns its checksum. */
export async function splitCallers(
  n: number,
  callers: number,
  loop: (caller: number, ops: number) => Promise<number>,
): Promise<number> {
  const each = Math.floor(n / callers);
  const extra = n - each * callers;
  const runs: Promise<number>[] = [];
  for (let t = 0; t < callers; t++) runs.push(loop(t, each + (t < extra ? 1 : 0)));
  let sum = 0;
  for (const r of await Promise.all(runs)) sum += r;
  return sum;
}
