import type { Clock, Timer, TimerOptions } from "./clock.js";

// setTimeout fires at once above 2^31-1 ms, so long waits are chained in chunks.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The process clock: `performance.now()` and `Date.now()`, timers from `setTimeout`. */
export class SystemClock implements Clock {
  monoMs(): number {
    return performance.now();
  }

  unixMs(): number {
    return Date.now();
  }

  setTimer(ms: number, fn: () => void, opts: TimerOptions = {}): Timer {
    let handle: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const arm = (remaining: number) => {
      const step = Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS);
      handle = setTimeout(() => {
        if (cancelled) return;
        if (remaining > MAX_TIMEOUT_MS) arm(remaining - MAX_TIMEOUT_MS);
        else fn();
      }, step);
      if (opts.unref) handle.unref();
    };
    arm(Number.isFinite(ms) ? ms : MAX_TIMEOUT_MS);
    return {
      cancel() {
        cancelled = true;
        if (handle !== undefined) clearTimeout(handle);
      },
    };
  }
}

/** The shared default clock. */
export const systemClock: Clock = new SystemClock();
