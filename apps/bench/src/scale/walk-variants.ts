import type { Limiter } from "@resil/limit";
import type { Variant } from "../harness.js";
import { CALLERS, KeyWalk, splitCallers, walks } from "../keys.js";
import type { UndecidedCounter } from "../variants.js";

/** What rate-limiter-flexible's limiters share: a promise per decision. */
export interface Consume {
  consume(key: string): Promise<unknown>;
}

/** resil tryCheck walking the keys, one caller; `check()` when undecided. */
export function tryCheckOne(
  id: string,
  label: string,
  limiter: Limiter,
  keys: readonly string[],
  c: UndecidedCounter,
): Variant {
  const walk = new KeyWalk(keys);
  // The first decision (a warm-up one) takes the undecided path, so the loop is optimized with it:
  // a rare first `check()` after that deoptimized the measured loop for the rest of the run.
  let primed = false;
  return {
    id,
    label,
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        const k = walk.next();
        let d = primed ? limiter.tryCheck(k) : undefined;
        if (d === undefined) {
          if (primed) c.undecided++;
          primed = true;
          d = await limiter.check(k);
        }
        if (d.kind !== "deny") ok++;
      }
      c.total += n;
      return ok;
    },
  };
}

/** The same with 16 concurrent async callers, each yielding every 64 decisions. */
export function tryCheckCallers(
  id: string,
  label: string,
  limiter: Limiter,
  keys: readonly string[],
  c: UndecidedCounter,
): Variant {
  const cursors = walks(keys, CALLERS);
  return {
    id,
    label,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          const k = walk.next();
          let d = limiter.tryCheck(k);
          if (d === undefined) {
            c.undecided++;
            d = await limiter.check(k);
          }
          if (d.kind !== "deny") ok++;
          if ((i & 63) === 63) await null;
        }
        c.total += ops;
        return ok;
      }),
  };
}

export function consumeOne(id: string, label: string, rlf: Consume, keys: readonly string[]): Variant {
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

export function consumeCallers(id: string, label: string, rlf: Consume, keys: readonly string[]): Variant {
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
