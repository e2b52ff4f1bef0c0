import { describe, expect, it } from "vitest";
import {
  ManualClock,
  type Meter,
  type MeterStatus,
  MultiRateLimiter,
  RateLimiter,
  RateLimiterPolicy,
  Reservation,
  WindowedRateLimiter,
  WindowPolicy,
} from "../../src/index.js";

/** A user meter: a plain counter with no time, open to `MultiRateLimiter` and `Reservation`. */
class CounterMeter implements Meter {
  used = 0;
  constructor(readonly limit: number) {}
  tryDebit(cost: number): number | null {
    if (this.used + cost > this.limit) return null;
    this.used += cost;
    return 0;
  }
  credit(cost: number): void {
    this.used = Math.max(0, this.used - cost);
  }
  timeUntil(cost: number): number {
    return this.used + cost <= this.limit ? 0 : Number.POSITIVE_INFINITY;
  }
  snapshot(): MeterStatus {
    return { used: this.used, limit: this.limit, availableInMs: this.timeUntil(1), resetsAt: null };
  }
}

describe("Meter", () => {
  it("case 1: rl(5) and win(5) as Meters: tryDebit(1) works on both; bucket resetsAt null, window set", () => {
    const clock = new ManualClock(0);
    const meters: Meter[] = [
      new RateLimiter(RateLimiterPolicy.perSecond(5), { clock }),
      new WindowedRateLimiter(new WindowPolicy(5, 60_000), { clock }),
    ];
    for (const m of meters) expect(m.tryDebit(1)).not.toBeNull();
    const [bucket, window] = meters.map((m) => m.snapshot());
    expect(bucket).toEqual({ used: 1, limit: 5, availableInMs: 0, resetsAt: null });
    expect(window).toEqual({ used: 1, limit: 5, availableInMs: 0, resetsAt: 60_000 });
  });

  it("a user-defined meter composes into a multi limiter and is refunded on a later tier's refusal", () => {
    const counter = new CounterMeter(3);
    const gate = new CounterMeter(0);
    const m = new MultiRateLimiter().withTier("counter", counter, 2).withTier("gate", gate, 1);
    const r = m.tryAcquire();
    expect(r).toEqual({ ok: false, tier: "gate", retryAfterMs: Number.POSITIVE_INFINITY });
    expect(counter.used).toBe(0);
  });

  it("a user-defined meter works with Reservation", () => {
    const counter = new CounterMeter(3);
    const r = Reservation.tryReserve(counter, 3)!;
    expect(Reservation.tryReserve(counter, 1)).toBeNull();
    r.release();
    expect(counter.snapshot().used).toBe(0);
  });
});
