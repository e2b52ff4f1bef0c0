import { type Clock, NEVER } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { acquireLoop, type Waiter } from "./acquire-loop.js";
import type { Meter, MeterStatus } from "./meter.js";
import type { LocalAcquireOptions, LocalLimiterMetrics, LocalLimiterOptions } from "./metrics.js";
import { PERMIT, type Permit } from "./permit.js";
import type { RateLimiterPolicy } from "./rate-limiter-policy.js";
import { Reservation } from "./reservation.js";
import { ceilWait, checkCost } from "./validate.js";

/**
 * An in-process token bucket. Starts full; refills lazily from the clock on each call (no timer).
 * Share one instance among everything that spends the same quota.
 */
export class RateLimiter implements Meter {
  readonly policy: RateLimiterPolicy;
  private readonly clock: Clock;
  private readonly metrics: LocalLimiterMetrics | undefined;
  private readonly name: string;
  private readonly capacity: number;
  private readonly refillPerMs: number;
  private tokens: number;
  private lastRefill: number;

  /** Throws `LocalPolicyError` for a bad policy. */
  constructor(policy: RateLimiterPolicy, options: LocalLimiterOptions = {}) {
    policy.validate();
    this.policy = policy;
    this.clock = options.clock ?? coarseClock;
    this.metrics = options.metrics;
    this.name = options.name ?? "rate-limiter";
    this.capacity = policy.capacity;
    this.refillPerMs = policy.refillPerMs;
    this.tokens = this.capacity;
    this.lastRefill = this.clock.monoMs();
  }

  /** Takes one token now, or returns null. */
  tryAcquire(): Permit | null {
    this.refill(this.clock.monoMs());
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.metrics?.acquired?.(this.name, 1);
      return PERMIT;
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Takes `cost` tokens now, or returns null (a cost above capacity never fits). RangeError on a bad cost. */
  tryAcquireN(cost: number): Permit | null {
    checkCost(cost, "RateLimiter.tryAcquireN");
    if (this.debit(cost)) {
      this.metrics?.acquired?.(this.name, cost);
      return PERMIT;
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Takes `cost` tokens as a refundable reservation, or returns null. */
  tryReserveN(cost: number): Reservation | null {
    checkCost(cost, "RateLimiter.tryReserveN");
    if (this.debit(cost)) {
      this.metrics?.acquired?.(this.name, cost);
      return new Reservation(this, cost, 0);
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return null;
  }

  /** Waits for one token. */
  acquire(opts?: LocalAcquireOptions): Promise<Permit> {
    return this.acquireN(1, opts);
  }

  /**
   * Waits until `cost` tokens are there, then takes them. Waiting reserves nothing (no queue): the
   * waiter recomputes on wake-up. A cost above capacity waits forever (no timer) unless aborted.
   */
  async acquireN(cost: number, opts: LocalAcquireOptions = {}): Promise<Permit> {
    checkCost(cost, "RateLimiter.acquireN");
    return acquireLoop(this.waiter(), cost, opts.signal, () =>
      this.debit(cost) ? undefined : this.waitFor(cost),
    );
  }

  /** Whole tokens available now (never below 0). */
  tokensAvailable(): number {
    this.refill(this.clock.monoMs());
    return Math.max(0, Math.floor(this.tokens));
  }

  /** Ms until `cost` tokens are there: 0 now (or for cost 0), Infinity above capacity. */
  timeUntil(cost: number): number {
    checkCost(cost, "RateLimiter.timeUntil");
    if (cost === 0) return 0;
    if (cost > this.capacity) return NEVER;
    this.refill(this.clock.monoMs());
    if (this.tokens >= cost) return 0;
    return (cost - this.tokens) / this.refillPerMs;
  }

  /** limit = capacity, used = capacity - tokensAvailable(), availableInMs = timeUntil(1), resetsAt null. */
  snapshot(): MeterStatus {
    return {
      used: Math.max(0, this.capacity - this.tokensAvailable()),
      limit: this.capacity,
      availableInMs: this.timeUntil(1),
      resetsAt: null,
    };
  }

  /** Meter: takes `cost` tokens now and returns epoch 0, or null. */
  tryDebit(cost: number): number | null {
    checkCost(cost, "RateLimiter.tryDebit");
    return this.debit(cost) ? 0 : null;
  }

  /** Meter: gives `cost` tokens back, capped at capacity (buckets ignore the epoch). */
  credit(cost: number, _epoch: number): void {
    checkCost(cost, "RateLimiter.credit");
    if (cost === 0) return;
    this.tokens = Math.min(this.tokens + cost, this.capacity);
  }

  // A free call reads no clock; a cost above capacity refills but never passes.
  private debit(cost: number): boolean {
    if (cost === 0) return true;
    this.refill(this.clock.monoMs());
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return true;
    }
    return false;
  }

  private refill(now: number): void {
    const elapsed = now - this.lastRefill;
    if (!(elapsed > 0)) return; // a clock that stood still (or stepped back) adds nothing
    const tokens = this.tokens + elapsed * this.refillPerMs;
    this.tokens = Math.min(tokens, this.capacity);
    this.lastRefill = now;
  }

  // Rounded up so the loop wakes after the deficit is refilled; a zero rate gives NEVER.
  private waitFor(cost: number): number {
    if (cost > this.capacity) return NEVER;
    const ms = (cost - this.tokens) / this.refillPerMs;
    return Number.isFinite(ms) ? Math.max(1, ceilWait(ms)) : NEVER;
  }

  /** Who waits in `acquireLoop`, for its metrics. */
  private waiter(): Waiter {
    return { clock: this.clock, metrics: this.metrics, name: this.name };
  }
}
