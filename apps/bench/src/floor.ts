import type { Variant } from "./harness.js";
import { CALLERS, HUGE_LIMIT, KeyWalk, splitCallers, walks } from "./keys.js";

/** Three window counters per key: the least any limiter with second, minute and hour windows must touch. */
interface Counters {
  s: number;
  m: number;
  h: number;
}

function counters(keys: readonly string[]): Map<string, Counters> {
  const map = new Map<string, Counters>();
  for (const k of keys) map.set(k, { s: 0, m: 0, h: 0 });
  return map;
}

// One decision: Map.get, then add + compare on each of the three windows.
function admit(map: Map<string, Counters>, key: string): number {
  const c = map.get(key);
  if (c === undefined) return 0;
  c.s += 1;
  c.m += 1;
  c.h += 1;
  return c.s <= HUGE_LIMIT && c.m <= HUGE_LIMIT && c.h <= HUGE_LIMIT ? 1 : 0;
}

export const FLOOR_LABEL = "floor: Map.get + add + compare x 3 windows";
export const FLOOR_CLOCK_LABEL = "floor + one performance.now() per decision";

// The floor plus the clock read every windowed limiter needs: what JS allows for a time-based decision.
function admitAt(map: Map<string, Counters>, key: string): number {
  const c = map.get(key);
  if (c === undefined) return 0;
  const now = performance.now();
  c.s += 1;
  c.m += 1;
  c.h += 1;
  return c.s <= HUGE_LIMIT && c.m <= HUGE_LIMIT && c.h <= HUGE_LIMIT && now >= 0 ? 1 : 0;
}

/** The floor for one caller walking `keys` (one key = the hot key). */
export function floorOneCaller(keys: readonly string[]): Variant {
  const map = counters(keys);
  const walk = new KeyWalk(keys);
  return {
    id: "floor",
    label: FLOOR_LABEL,
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) ok += admit(map, walk.next());
      return ok;
    },
  };
}

/** The floor for 16 async callers, each yielding every 64 decisions like the synchronous resil variant. */
export function floorCallers(keys: readonly string[]): Variant {
  const map = counters(keys);
  const cursors = walks(keys, CALLERS);
  return {
    id: "floor",
    label: FLOOR_LABEL,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          ok += admit(map, walk.next());
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}

export function floorClockOneCaller(keys: readonly string[]): Variant {
  const map = counters(keys);
  const walk = new KeyWalk(keys);
  return {
    id: "floor-clock",
    label: FLOOR_CLOCK_LABEL,
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) ok += admitAt(map, walk.next());
      return ok;
    },
  };
}

export function floorClockCallers(keys: readonly string[]): Variant {
  const map = counters(keys);
  const cursors = walks(keys, CALLERS);
  return {
    id: "floor-clock",
    label: FLOOR_CLOCK_LABEL,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          ok += admitAt(map, walk.next());
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}
