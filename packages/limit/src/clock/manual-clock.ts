import type { Clock, Timer } from "./clock.js";

/** The manual clocks' epoch: 2025-06-15T15:06:40Z, the same value for both readings. */
export const MANUAL_CLOCK_START_MS = 1_750_000_000_000;

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A virtual clock: time moves only through `advance`/`advanceAsync`/`set`, and timers fire, in time
 * order, when the clock passes them. `monoMs()` and `unixMs()` return the same value.
 */
export class ManualClock implements Clock {
  private now: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(startMs: number = MANUAL_CLOCK_START_MS) {
    this.now = startMs;
  }

  monoMs(): number {
    return this.now;
  }

  unixMs(): number {
    return this.now;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry: Pending = { at: this.now + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    if (Number.isFinite(entry.at)) this.pending.push(entry); // a NEVER timer can never fire
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Number of timers still scheduled. */
  pendingTimers(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /**
   * Moves time forward by `ms`, firing due timers synchronously in time order (the clock reads each
   * timer's own time while it runs). Promise continuations run only after this returns.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be a non-negative number, got ${ms}`);
    const target = this.now + ms;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.now = Math.max(this.now, next.at);
      next.fn();
    }
    this.now = target;
  }

  /**
   * Like `advance`, but lets promise continuations run after each timer, so code that awaits a
   * timer and then schedules another (a sleep loop) sees every step.
   */
  async advanceAsync(ms: number): Promise<void> {
    if (!(ms >= 0))
      throw new RangeError(`ManualClock.advanceAsync: ms must be a non-negative number, got ${ms}`);
    const target = this.now + ms;
    await flush();
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.now = Math.max(this.now, next.at);
      next.fn();
      await flush();
    }
    this.now = target;
    await flush();
  }

  /**
   * Moves time forward by `ms` without firing timers, as a blocked event loop does: timers that came
   * due fire late, at the next `advance`, while I/O that completes now sees the later time.
   */
  stall(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.stall: ms must be a non-negative number, got ${ms}`);
    this.now += ms;
  }

  /** Sets the clock to an absolute time (not backwards), firing the timers passed on the way. */
  set(ms: number): void {
    this.advance(Math.max(0, ms - this.now));
  }

  private nextDue(target: number): Pending | undefined {
    this.pending = this.pending.filter((p) => !p.cancelled);
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > target) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    if (best) best.cancelled = true; // fired timers leave the queue
    return best;
  }
}

// Lets queued promise continuations (and the ones they queue) run.
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
