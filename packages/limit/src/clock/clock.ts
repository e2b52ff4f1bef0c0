/** A scheduled callback; `cancel()` is idempotent. */
export interface Timer {
  cancel(): void;
}

export interface TimerOptions {
  /** Do not keep the process alive for this timer (background loops). Default false. */
  unref?: boolean;
}

/**
 * Time for every limiter: a monotonic reading for durations and a Unix reading for window alignment,
 * plus timers, so one manual clock can drive a whole simulation.
 */
export interface Clock {
  /** Monotonic milliseconds (fractional), for durations and credit validity. */
  monoMs(): number;
  /** Unix epoch milliseconds, for aligning windows and `reset` headers. */
  unixMs(): number;
  /** Runs `fn` once, `ms` from now (clamped to >= 0). */
  setTimer(ms: number, fn: () => void, opts?: TimerOptions): Timer;
}

/** Never: a wait that no amount of time satisfies. */
export const NEVER = Number.POSITIVE_INFINITY;
