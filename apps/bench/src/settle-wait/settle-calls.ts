import type { Limiter } from "@resil/limit";
import type { Variant } from "../harness.js";

/** rate-limiter-flexible's after-the-fact adjustments (RateLimiterMemory and RateLimiterRedis alike). */
export interface Adjuster {
  penalty(key: string, points: number): Promise<unknown>;
  reward(key: string, points: number): Promise<unknown>;
}

/** resil `settle(subject, +1, takenAt)`: an extra charge, counted at once on this replica (sends nothing). */
export function resilCharge(id: string, label: string, limiter: Limiter, key: string): Variant {
  return {
    id,
    label,
    chunk(n) {
      const takenAt = limiter.storeTime();
      let applied = 0;
      for (let i = 0; i < n; i++) applied += limiter.settle(key, 1, takenAt);
      return applied;
    },
  };
}

/**
 * resil `settle(subject, -1, takenAt)`: a refund into the current window. Each chunk first admits its
 * n units in one `tryAdmit` (one call per chunk of at least 16 settles), so every refund has units to return.
 */
export function resilRefund(id: string, label: string, limiter: Limiter, key: string): Variant {
  return {
    id,
    label,
    note: "each chunk of n refunds first admits n units with one tryAdmit",
    chunk(n) {
      const takenAt = limiter.storeTime();
      limiter.tryAdmit(key, n);
      let applied = 0;
      for (let i = 0; i < n; i++) applied -= limiter.settle(key, -1, takenAt);
      return applied;
    },
  };
}

/** rate-limiter-flexible `penalty(key, 1)` or `reward(key, 1)`, awaited one after the other (one caller). */
export function rlfAdjust(
  id: string,
  label: string,
  rlf: Adjuster,
  key: string,
  how: "penalty" | "reward",
): Variant {
  return {
    id,
    label,
    async chunk(n) {
      for (let i = 0; i < n; i++) await (how === "penalty" ? rlf.penalty(key, 1) : rlf.reward(key, 1));
      return n;
    },
  };
}
