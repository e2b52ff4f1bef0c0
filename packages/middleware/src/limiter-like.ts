/**
 * The parts of `@resil/limit`'s `Limiter` the middleware calls, restated structurally so this package
 * has no run-time dependency on the limiter (a `Limiter` satisfies it as it is).
 */

/** A decision's headers: `reset` is absolute Unix seconds; `retryAfter` whole seconds, denials only. */
export interface DecisionHeaders {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter?: number;
}

export type LimiterDecision =
  | { kind: "unlimited" }
  | { kind: "allow"; headers: DecisionHeaders }
  | { kind: "deny"; headers: DecisionHeaders; reason: string };

/** A held concurrency slot; `release()` is idempotent. */
export interface HeldSlot {
  release(): void;
}

export type SlotResult =
  | { kind: "unlimited" }
  | { kind: "acquired"; slot: HeldSlot }
  | { kind: "denied"; max: number; retryAfter: number };

/** A rate-limit policy: `@resil/limit`'s `RateLimitConfig` (passed to the limiter as it is). */
export interface RateLimitsLike {
  algorithm?: "fixed_window" | "sliding_window" | "token_bucket" | null;
  requestsPerSecond?: number | null;
  requestsPerMinute?: number | null;
  requestsPerHour?: number | null;
  burstSize?: number | null;
  enabled?: boolean | null;
  cacheTtlMs?: number | null;
  redisTimeoutMs?: number | null;
  localAllowance?: number | null;
  syncIntervalMs?: number | null;
}

/** What the middleware needs of a limiter: `@resil/limit`'s `Limiter`. */
export interface LimiterLike {
  tryCheck(subject: string, cost?: number): LimiterDecision | undefined;
  check(subject: string, cost?: number): Promise<LimiterDecision>;
  acquire(subject: string): Promise<SlotResult>;
  /** Policy families: every subject starting with `prefix` without a policy of its own gets this one. */
  setFamily?(prefix: string, rateLimits?: RateLimitsLike | null, maxConcurrent?: number | null): void;
}
