import { describe, expect, it } from "vitest";
import {
  ManualClock,
  type Meter,
  type MeterStatus,
  Reservation,
  WindowedRateLimiter,
  WindowPolicy,
} from "../../src/index.js";

/** A meter that records every call. */
class SpyMeter implements Meter {
  credits: Array<[number, number]> = [];
  constructor(private readonly accept: boolean) {}
  tryDebit(): number | null {
    return this.accept ? 7 : null;
  }
  credit(cost: number, epoch: number): void {
    this.credits.push([cost, epoch]);
  }
  timeUntil(): number {
    return 0;
  }
  snapshot(): MeterStatus {
    return { used: 0, limit: 1, availableInMs: 0, resetsAt: null };
  }
}

describe("Reservation", () => {
  it("release credits the meter exactly once, with the debit's epoch", () => {
    const m = new SpyMeter(true);
    const r = Reservation.tryReserve(m, 3)!;
    expect(r.state).toBe("pending");
    r.release();
    r.release();
    expect(m.credits).toEqual([[3, 7]]);
    expect(r.state).toBe("released");
  });

  it("commit makes the debit permanent: a later release does nothing", () => {
    const m = new SpyMeter(true);
    const r = new Reservation(m, 2, 0);
    r.commit();
    r.release();
    expect(m.credits).toEqual([]);
    expect(r.state).toBe("committed");
  });

  it("commit after release does not resurrect it", () => {
    const r = new Reservation(new SpyMeter(true), 2, 0);
    r.release();
    r.commit();
    expect(r.state).toBe("released");
  });

  it("tryReserve returns null when the meter refuses", () => {
    expect(Reservation.tryReserve(new SpyMeter(false), 1)).toBeNull();
  });

  it("Symbol.dispose releases an uncommitted reservation", () => {
    const m = new SpyMeter(true);
    const r = Reservation.tryReserve(m, 4)!;
    r[Symbol.dispose]();
    expect(m.credits).toEqual([[4, 7]]);
  });

  it("works with `using`: the scope's end refunds what was not committed", () => {
    const w = new WindowedRateLimiter(new WindowPolicy(5, 60_000), { clock: new ManualClock(0) });
    {
      using kept = w.tryReserveN(2)!;
      using dropped = w.tryReserveN(1)!;
      kept.commit();
      expect(dropped.state).toBe("pending");
      expect(w.used()).toBe(3);
    }
    expect(w.used()).toBe(2);
  });
});
