import type { Clock } from "../clock/clock.js";

/**
 * Optional observation hooks for the in-process limiters. Each is called synchronously after the
 * limiter's state is updated, with the limiter's `name` first; hooks should be cheap and must not throw.
 * Only the limiter's own acquire family reports; raw `Meter` calls (`tryDebit`, `credit`) do not.
 */
export interface LocalLimiterMetrics {
  /** A grant; `cost` is the units consumed (0 for a free call; 1 per call for a multi limiter). */
  acquired?(name: string, cost: number): void;
  /** A `try*` call was refused (`rejected`), or an `acquire*` call had to wait (`waited`, once per call). */
  throttled?(name: string, how: "rejected" | "waited"): void;
  /** Total time an `acquire*` call that slept spent waiting before its grant. */
  waitTime?(name: string, ms: number): void;
  /** A multi limiter was refused by `tier` (every rejection, tries and each wait of an acquire). */
  tierThrottled?(name: string, tier: string): void;
}

/** Options shared by the in-process limiters. */
export interface LocalLimiterOptions {
  /** Time source; `monoMs()` is "now" and waits use its timers. Default: `coarseClock` (the system clock, read once per event-loop turn). */
  clock?: Clock;
  /** Observation hooks. Default: none. */
  metrics?: LocalLimiterMetrics;
  /** Label passed to the metrics hooks. Default: the class name in kebab case. */
  name?: string;
}

/** Options of a waiting acquire. */
export interface LocalAcquireOptions {
  /** Aborts the wait: the promise rejects with `signal.reason`, nothing is debited. */
  signal?: AbortSignal;
}
