/** What a failure means for the circuit breakers. */
export type BreakerSignal =
  | { kind: "ignore" }
  /** Count against this target only. */
  | { kind: "deployment" }
  /** Count against this target and its provider. */
  | { kind: "vendor" }
  /** Open this target's breaker for exactly `ms` (a 429 with a delay hint). */
  | { kind: "openFor"; ms: number };

/** The decision a failure leads to: retry here, fail over, signal the breakers, or blame the caller. */
export interface Verdict {
  /** Worth another attempt on the same target. */
  retryable: boolean;
  /** Worth trying the next target. */
  failover: boolean;
  breaker: BreakerSignal;
  /** The request itself is wrong; no target will accept it. */
  callerError: boolean;
  /** The upstream's delay hint, when it gave one (capped at one hour). */
  retryAfterMs?: number;
  /** The provider refused for its concurrency limit, not for a rate limit. */
  vendorConcurrency: boolean;
}
