/** A point-in-time view of a meter's capacity, for observability. */
export interface MeterStatus {
  /** Units spent and not yet back (bucket: capacity - whole tokens available). */
  readonly used: number;
  /** The ceiling (bucket: maxTokens + burst; window: limit). */
  readonly limit: number;
  /** Milliseconds until one more unit may be admitted (0 now, Infinity never). */
  readonly availableInMs: number;
  /** When the quota resets on the meter's clock (`monoMs` timeline), or null (buckets, endless windows). */
  readonly resetsAt: number | null;
}

/**
 * A synchronous throttle that admits or rejects weighted units: what a `MultiRateLimiter` composes.
 * Implemented by `RateLimiter` and `WindowedRateLimiter`; open to user implementations.
 */
export interface Meter {
  /** Debits `cost` if it fits now and returns the epoch to refund against, else null. */
  tryDebit(cost: number): number | null;
  /** Refunds `cost` debited at `epoch`; a refund for a stale epoch is ignored. */
  credit(cost: number, epoch: number): void;
  /** Milliseconds until `cost` could be debited: 0 now, Infinity (NEVER) if it never can. */
  timeUntil(cost: number): number;
  snapshot(): MeterStatus;
}
