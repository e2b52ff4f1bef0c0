import { type Clock, exactMonoMs, type Timer, type TimerOptions } from "./clock.js";
import { systemClock } from "./system-clock.js";

/**
 * A clock that reads its base clock at most once per event-loop turn: the first reading in a turn
 * is cached until the turn's check phase (setImmediate). Every admission in one turn sees the same
 * time, so the Limiter's hot path costs a field read instead of a clock call (about 35 ns here).
 * Staleness is bounded by how long the current turn runs; credit is trusted for 0.75 of its lease,
 * which leaves ample room.
 */
export class CoarseClock implements Clock {
  private cached = false;
  private mono = 0;
  private unix = 0;
  private readonly expire = () => {
    this.cached = false;
  };

  constructor(private readonly base: Clock = systemClock) {}

  monoMs(): number {
    if (!this.cached) this.refresh();
    return this.mono;
  }

  unixMs(): number {
    if (!this.cached) this.refresh();
    return this.unix;
  }

  exactMonoMs(): number {
    return exactMonoMs(this.base);
  }

  setTimer(ms: number, fn: () => void, opts?: TimerOptions): Timer {
    return this.base.setTimer(ms, fn, opts);
  }

  private refresh(): void {
    this.mono = this.base.monoMs();
    this.unix = this.base.unixMs();
    this.cached = true;
    setImmediate(this.expire);
  }
}

/** The default clock of every limiter: the system clock, read at most once per event-loop turn. */
export const coarseClock: Clock = new CoarseClock();
