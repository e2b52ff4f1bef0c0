// Regressions found in review: each case failed before its fix.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { InvalidPolicyError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundRequest, Store } from "../../src/store/types.js";

function spied(clock: ManualClock) {
  const store = new MemoryStore(clock);
  const sent: RoundRequest[] = [];
  const spy: Store = {
    round(r) {
      sent.push(structuredClone(r));
      return store.round(r);
    },
  };
  return { store, sent, spy };
}

describe("review regressions", () => {
  it("a direct unit no waiter took becomes ordinary credit: never charged twice, no negative counts", async () => {
    const clock = new ManualClock();
    clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000 + 1);
    const { sent, spy } = spied(clock);
    const l = new Limiter({ podId: "p" }, spy, clock);
    l.setPolicy("k", {
      algorithm: "fixed_window",
      requestsPerSecond: 10,
      localAllowance: 0.8,
      cacheTtlMs: 50,
    });
    await l.syncNow(true);
    let units = 0;
    for (let i = 0; i < 7; i++) {
      if ((await l.check("k")).kind === "allow") units++;
      await l.syncNow(false);
    }
    expect(units).toBe(7);
    clock.advance(100); // the view is older than cacheTtlMs: a cost-5 request asks the store
    // 3 left: 2 granted + 1 direct, too few for 5: denied, and the direct unit stays as credit
    expect((await l.check("k", 5)).kind).toBe("deny");
    await l.syncNow(true); // a sync before anyone spent it: nothing is pending
    for (let i = 0; i < 10; i++) {
      if ((await l.check("k")).kind === "allow") units++;
      await l.syncNow(false);
    }
    expect(units).toBe(10); // the whole second's budget, the direct unit charged once
    for (const r of sent) {
      for (const rate of r.rates) {
        expect(rate.hits).toBeGreaterThanOrEqual(0);
        expect(rate.hitsOld).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("shutdown right after a boundary with a used key leaves no timer behind", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = new Limiter({ podId: "p" }, store, clock);
    l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 });
    await l.start();
    await clock.advanceAsync(500);
    expect((await l.check("k")).kind).toBe("allow");
    await clock.advanceAsync(498); // the boundary wake, 2 ms before the second: the key was used
    await l.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("concurrency credit is trusted 0.75 x leaseTtlMs from its send, not 0.75 x the 5 s slot lease", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = new Limiter({ podId: "p" }, store, clock);
    l.setPolicy("c", { localAllowance: 0.8 }, 10);
    const first = await l.acquire("c"); // cold, and a sync right away
    expect(first.kind).toBe("acquired");
    await clock.advanceAsync(0);
    if (first.kind === "acquired") first.slot.release();
    clock.advance(2000);
    const second = await l.acquire("c");
    expect(l.outcomeCount("allowLocal")).toBe(1); // still valid at 2000 ms
    if (second.kind === "acquired") second.slot.release();
    clock.advance(1000); // 3000 ms after the send: past 0.75 x 3000
    await l.acquire("c");
    expect(l.outcomeCount("allowLocal")).toBe(1);
    expect(l.outcomeCount("allowCold")).toBe(2);
  });

  it("an algorithm name from Object.prototype is rejected, not sent to the store", () => {
    const l = new Limiter({ podId: "p" }, new MemoryStore(new ManualClock()), new ManualClock());
    for (const algorithm of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(() => l.setPolicy("k", { algorithm: algorithm as never, requestsPerSecond: 5 })).toThrow(
        InvalidPolicyError,
      );
    }
    expect(l.hasPolicy("k")).toBe(false);
  });
});
