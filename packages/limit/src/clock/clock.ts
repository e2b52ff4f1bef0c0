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
  /**
   * Monotonic milliseconds read at this instant, past any per-turn cache (`monoMs()` when absent).
   * Round trips are timed with it: a cached reading times a reply read in the turn it was sent as 0 ms.
   */
  exactMonoMs?(): number;
}

/** `clock.exactMonoMs()`, or `monoMs()` for a clock without a cache. */
export function exactMonoMs(clock: Clock): number {
  return clock.exactMonoMs?.() ?? clock.monoMs();
}

/** Never: a wait that no amount of time satisfies. */
export const NEVER = Number.POSITIVE_INFINITY;
