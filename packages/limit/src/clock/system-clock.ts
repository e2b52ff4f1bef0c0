import type { Clock, Timer, TimerOptions } from "./clock.js";

// setTimeout fires at once above 2^31-1 ms, so long waits are chained in chunks.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** One `setTimeout` (a chain of them past MAX_TIMEOUT_MS): a wait on a sync arms one per request. */
class SystemTimer implements Timer {
  private handle: ReturnType<typeof setTimeout> | undefined;
  private cancelled = false;

  constructor(
    private remaining: number,
    private readonly fn: () => void,
    private readonly unref: boolean,
  ) {
    this.arm();
  }

  cancel(): void {
    this.cancelled = true;
    if (this.handle !== undefined) clearTimeout(this.handle);
  }

  private arm(): void {
    const step = Math.min(Math.max(0, this.remaining), MAX_TIMEOUT_MS);
    this.remaining -= step;
    this.handle = setTimeout(SystemTimer.fire, step, this);
    if (this.unref) this.handle.unref();
  }

  // static, with the timer as setTimeout's argument: no closure per timer
  private static fire(timer: SystemTimer): void {
    if (timer.cancelled) return;
    if (timer.remaining > 0) timer.arm();
    else timer.fn();
  }
}

/** The process clock: `performance.now()` and `Date.now()`, timers from `setTimeout`. */
export class SystemClock implements Clock {
  monoMs(): number {
    return performance.now();
  }

  unixMs(): number {
    return Date.now();
  }

  setTimer(ms: number, fn: () => void, opts?: TimerOptions): Timer {
    return new SystemTimer(Number.isFinite(ms) ? ms : MAX_TIMEOUT_MS, fn, opts?.unref === true);
  }
}

/** The shared default clock. */
export const systemClock: Clock = new SystemClock();
