import { type Clock, NEVER } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { acquireLoop, type Waiter } from "./acquire-loop.js";
import type { Meter, MeterStatus } from "./meter.js";
import type { LocalAcquireOptions, LocalLimiterMetrics, LocalLimiterOptions } from "./metrics.js";
import { PERMIT, type Permit } from "./permit.js";
import { Reservation } from "./reservation.js";
import { ceilWait, checkCost } from "./validate.js";
import type { WindowPolicy } from "./window-policy.js";

/**
 * An in-process fixed window: up to `limit` units per window, hard reset. The first window starts at
 * construction; any call that finds the window over starts a new one at that moment.
 */
export class WindowedRateLimiter implements Meter {
  readonly policy: WindowPolicy;
  private readonly clock: Clock;
  private readonly metrics: LocalLimiterMetrics | undefined;
  private readonly name: string;
  private readonly limit: number;
  private readonly windowMs: number;
  private windowStart: number;
  private usedUnits = 0;
  private generation = 0;

  /** Throws `LocalPolicyError` for a bad policy. */
  constructor(policy: WindowPolicy, options: LocalLimiterOptions = {}) {
    policy.validate();
    this.policy = policy;
    this.clock = options.clock ?? coarseClock;
    this.metrics = options.metrics;
    this.name = options.name ?? "windowed-rate-limiter";
    this.limit = policy.limit;
    this.windowMs = policy.windowMs;
    this.windowStart = this.clock.monoMs();
  }

  /** Takes one unit of this window now, or returns null. */
  tryAcquire(): Permit | null {
    this.roll(this.clock.monoMs());
    if (this.usedUnits < this.limit) {
      this.usedUnits += 1;
      this.metrics?.acquired?.(this.name, 1);
      return PERMIT;
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Takes `cost` units now, or returns null (a cost above the limit never fits). RangeError on a bad cost. */
  tryAcquireN(cost: number): Permit | null {
    checkCost(cost, "WindowedRateLimiter.tryAcquireN");
    if (this.debit(cost) !== null) {
      this.metrics?.acquired?.(this.name, cost);
      return PERMIT;
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Takes `cost` units as a reservation; its refund applies only within the same window. */
  tryReserveN(cost: number): Reservation | null {
    checkCost(cost, "WindowedRateLimiter.tryReserveN");
    const epoch = this.debit(cost);
    if (epoch !== null) {
      this.metrics?.acquired?.(this.name, cost);
      return new Reservation(this, cost, epoch);
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Waits for one unit. */
  acquire(opts?: LocalAcquireOptions): Promise<Permit> {
    return this.acquireN(1, opts);
  }

  /** Waits for the window that has room for `cost`; a cost above the limit waits forever (no timer). */
  async acquireN(cost: number, opts: LocalAcquireOptions = {}): Promise<Permit> {
    checkCost(cost, "WindowedRateLimiter.acquireN");
    return acquireLoop(this.waiter(), cost, opts.signal, () => {
      const now = this.clock.monoMs();
      if (this.debit(cost, now) !== null) return undefined;
      const wait = cost > this.limit ? NEVER : this.timeUntilReset(now);
      return Number.isFinite(wait) ? Math.max(1, ceilWait(wait)) : NEVER;
    });
  }

  /** Units spent in the current window. */
  used(): number {
    this.roll(this.clock.monoMs());
    return this.usedUnits;
  }

  /** Units left in the current window. */
  remaining(): number {
    this.roll(this.clock.monoMs());
    return Math.max(0, this.limit - this.usedUnits);
  }

  /** When the current window ends, on the clock's `monoMs` timeline; null for an endless window. */
  resetsAt(): number | null {
    this.roll(this.clock.monoMs());
    const at = this.windowStart + this.windowMs;
    return Number.isFinite(at) ? at : null;
  }

  /** Ms until `cost` fits: 0 now (or for cost 0), Infinity above the limit, else until the reset. */
  timeUntil(cost: number): number {
    checkCost(cost, "WindowedRateLimiter.timeUntil");
    const now = this.clock.monoMs();
    this.roll(now);
    if (cost === 0 || this.usedUnits + cost <= this.limit) return 0;
    if (cost > this.limit) return NEVER;
    return this.timeUntilReset(now);
  }

  snapshot(): MeterStatus {
    const now = this.clock.monoMs();
    this.roll(now);
    const at = this.windowStart + this.windowMs;
    return {
      used: this.usedUnits,
      limit: this.limit,
      availableInMs: this.usedUnits < this.limit ? 0 : this.timeUntilReset(now),
      resetsAt: Number.isFinite(at) ? at : null,
    };
  }

  /** Meter: takes `cost` units now and returns the window's generation, or null. */
  tryDebit(cost: number): number | null {
    checkCost(cost, "WindowedRateLimiter.tryDebit");
    return this.debit(cost);
  }

  /** Meter: gives `cost` units back if `epoch` is still the current window; a stale refund is dropped. */
  credit(cost: number, epoch: number): void {
    checkCost(cost, "WindowedRateLimiter.credit");
    if (cost === 0) return;
    this.roll(this.clock.monoMs());
    if (epoch === this.generation) this.usedUnits = Math.max(0, this.usedUnits - cost);
  }

  // Rolls even for cost 0, so a free call still reports the current generation.
  private debit(cost: number, now: number = this.clock.monoMs()): number | null {
    this.roll(now);
    if (this.usedUnits + cost > this.limit) return null;
    this.usedUnits += cost;
    return this.generation;
  }

  private roll(now: number): void {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.usedUnits = 0;
      this.generation += 1;
    }
  }

  private timeUntilReset(now: number): number {
    const at = this.windowStart + this.windowMs;
    return Number.isFinite(at) ? Math.max(0, at - now) : NEVER;
  }

  /** Who waits in `acquireLoop`, for its metrics. */
  private waiter(): Waiter {
    return { clock: this.clock, metrics: this.metrics, name: this.name };
  }
}
