import type { Limiter } from "@resil/limit";
import type { Variant } from "./harness.js";
import { CALLERS, KeyWalk, splitCallers, walks } from "./keys.js";
import type { CachedCounter } from "./peers/cached-counter.js";
import { limiterPerKey } from "./peers/limiter-windows.js";
import { tryCheckCallers, tryCheckOne } from "./scale/walk-variants.js";

// Every loop below is written out per implementation on purpose: a shared loop calling a closure
// would turn its call site megamorphic and slow every variant (the floor included) alike.

export const LABELS = {
  trycheck: "resil Limiter.tryCheck (sync; check() when undecided)",
  tryadmit: "resil Limiter.tryAdmit (no headers, no allocation; check() when undecided)",
  check: "resil Limiter.check (await)",
  limiter: "limiter RateLimiter x 3 windows (per replica)",
  rlf: "RateLimiterMemory x 3 windows (per replica)",
  rlf1: "RateLimiterMemory, 1 window (per replica)",
  cached: "cached counter: limiter + Redis count every 200 ms, allowance 0.8",
  rlfRedis: "RateLimiterRedis, 1 window (cluster-wide, 1 round trip)",
} as const;

/** Counts decisions tryCheck could not make alone, so the row can say how often check() ran. */
export interface UndecidedCounter {
  undecided: number;
  total: number;
}

export function undecidedNote(c: UndecidedCounter, method = "tryCheck"): string | undefined {
  if (c.total === 0) return undefined;
  if (c.undecided === 0) return `${method} decided every call`;
  const pct = (100 * c.undecided) / c.total;
  return `${method} undecided on ${pct < 0.01 ? "< 0.01" : pct.toFixed(2)}% of calls (${c.undecided})`;
}

// ---- one caller -------------------------------------------------------------------------------

export function resilTryCheckOne(limiter: Limiter, keys: readonly string[], c: UndecidedCounter): Variant {
  return tryCheckOne("resil-trycheck", LABELS.trycheck, limiter, keys, c);
}

export function resilTryAdmitOne(limiter: Limiter, keys: readonly string[], c: UndecidedCounter): Variant {
  const walk = new KeyWalk(keys);
  return {
    id: "resil-tryadmit",
    label: LABELS.tryadmit,
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        const k = walk.next();
        let admitted = limiter.tryAdmit(k);
        if (admitted === undefined) {
          c.undecided++;
          admitted = (await limiter.check(k)).kind !== "deny";
        }
        if (admitted) ok++;
      }
      c.total += n;
      return ok;
    },
  };
}

export function resilCheckOne(limiter: Limiter, keys: readonly string[]): Variant {
  const walk = new KeyWalk(keys);
  return {
    id: "resil-check",
    label: LABELS.check,
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if ((await limiter.check(walk.next())).kind !== "deny") ok++;
      return ok;
    },
  };
}

export function limiterOne(keys: readonly string[]): Variant {
  const map = limiterPerKey(keys);
  const walk = new KeyWalk(keys);
  return {
    id: "limiter",
    label: LABELS.limiter,
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (map.get(walk.next())?.tryRemove()) ok++;
      return ok;
    },
  };
}

export function cachedOne(cc: CachedCounter, keys: readonly string[]): Variant {
  const walk = new KeyWalk(keys);
  return {
    id: "cached-counter",
    label: LABELS.cached,
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (cc.admit(walk.next())) ok++;
      return ok;
    },
  };
}

/** rate-limiter-flexible's `consume` (memory, three windows, Redis): async, so one loop serves all. */
export interface Consumer {
  consume(key: string): Promise<unknown>;
}

export type ConsumerId = "rlf-memory" | "rlf-memory-1w" | "rlf-redis";

export function consumeOne(id: ConsumerId, label: string, rlf: Consumer, keys: readonly string[]): Variant {
  const walk = new KeyWalk(keys);
  return {
    id,
    label,
    async chunk(n) {
      for (let i = 0; i < n; i++) await rlf.consume(walk.next());
      return n;
    },
  };
}

// ---- 16 concurrent async callers ------------------------------------------------------------------
// Synchronous deciders yield every 64 decisions (as the documented bench tasks do); async ones await each call.

export function resilTryCheckCallers(
  limiter: Limiter,
  keys: readonly string[],
  c: UndecidedCounter,
): Variant {
  return tryCheckCallers("resil-trycheck", LABELS.trycheck, limiter, keys, c);
}

export function resilTryAdmitCallers(
  limiter: Limiter,
  keys: readonly string[],
  c: UndecidedCounter,
): Variant {
  const cursors = walks(keys, CALLERS);
  return {
    id: "resil-tryadmit",
    label: LABELS.tryadmit,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          const k = walk.next();
          let admitted = limiter.tryAdmit(k);
          if (admitted === undefined) {
            c.undecided++;
            admitted = (await limiter.check(k)).kind !== "deny";
          }
          if (admitted) ok++;
          if ((i & 63) === 63) await null;
        }
        c.total += ops;
        return ok;
      }),
  };
}

export function resilCheckCallers(limiter: Limiter, keys: readonly string[]): Variant {
  const cursors = walks(keys, CALLERS);
  return {
    id: "resil-check",
    label: LABELS.check,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) if ((await limiter.check(walk.next())).kind !== "deny") ok++;
        return ok;
      }),
  };
}

export function limiterCallers(keys: readonly string[]): Variant {
  const map = limiterPerKey(keys);
  const cursors = walks(keys, CALLERS);
  return {
    id: "limiter",
    label: LABELS.limiter,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          if (map.get(walk.next())?.tryRemove()) ok++;
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}

export function cachedCallers(cc: CachedCounter, keys: readonly string[]): Variant {
  const cursors = walks(keys, CALLERS);
  return {
    id: "cached-counter",
    label: LABELS.cached,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          if (cc.admit(walk.next())) ok++;
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}

export function consumeCallers(
  id: ConsumerId,
  label: string,
  rlf: Consumer,
  keys: readonly string[],
): Variant {
  const cursors = walks(keys, CALLERS);
  return {
    id,
    label,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        for (let i = 0; i < ops; i++) await rlf.consume(walk.next());
        return ops;
      }),
  };
}
