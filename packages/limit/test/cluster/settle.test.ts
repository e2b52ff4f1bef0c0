// Reserve then settle (docs/protocol.md#s2-10): a charge counts at once and may leave debt, a refund
// returns units while its window is current, the store sees the result with the next sync.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { LimiterClosedError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { InvalidSettleError } from "../../src/cluster/settle.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { WindowSpec } from "../../src/store/types.js";
import { storeCount } from "./store-probe.js";

const SPEC: WindowSpec[] = [{ limit: 1000, windowMs: 60_000, burst: 1000 }];
const POLICY = { algorithm: "fixed_window", requestsPerMinute: 1000, localAllowance: 0.8 } as const;

/** One replica on a minute + 1 ms, holding credit (its policy set before the first sync). */
async function setup(subject = "k") {
  const clock = new ManualClock();
  clock.set((Math.floor(clock.unixMs() / 60_000) + 1) * 60_000 + 1);
  const store = new MemoryStore(clock);
  const limiter = new Limiter({ service: "t", podId: "p", slowSyncMs: 60_000 }, store, clock);
  limiter.setPolicy(subject, POLICY);
  await limiter.syncNow(true);
  return { clock, store, limiter };
}

describe("settle", () => {
  it("a charge counts at once, is pushed with the next sync, and no settle call sends anything", async () => {
    const { clock, store, limiter } = await setup();
    const at = limiter.storeTime();
    expect(limiter.tryAdmit("k", 100)).toBe(true);
    const rounds = store.rounds;
    for (let i = 0; i < 10; i++) expect(limiter.settle("k", 5, at)).toBe(5);
    expect(store.rounds).toBe(rounds);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(150);
  });

  it("a refund before the push is never pushed; after the push its units are reused unpushed", async () => {
    const { clock, store, limiter } = await setup();
    let at = limiter.storeTime();
    expect(limiter.tryAdmit("k", 100)).toBe(true);
    expect(limiter.settle("k", -60, at)).toBe(-60);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(40);
    at = limiter.storeTime();
    expect(limiter.tryAdmit("k", 100)).toBe(true);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(140);
    expect(limiter.settle("k", -30, at)).toBe(-30);
    expect(limiter.tryAdmit("k", 30)).toBe(true);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(140);
  });

  it("a refund after its window ended returns nothing; units refunded and unused lapse with the window", async () => {
    const { clock, store, limiter } = await setup();
    const at = limiter.storeTime();
    expect(limiter.tryAdmit("k", 100)).toBe(true);
    await limiter.syncNow(true);
    expect(limiter.settle("k", -50, at)).toBe(-50); // 50 pushed units back to this replica
    clock.advance(60_000); // the next minute: they must not be spent there uncounted
    await limiter.syncNow(true);
    expect(limiter.settle("k", -10, at)).toBe(0);
    let admitted = 0;
    for (let i = 0; i < 20 && limiter.tryAdmit("k", 10) === true; i++) admitted += 10;
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(admitted);
  });

  it("a charge past the limit leaves debt: requests are denied, and a fixed window repays it next window", async () => {
    const { clock, store, limiter } = await setup();
    const at = limiter.storeTime();
    expect((await limiter.check("k", 900)).kind).toBe("allow");
    expect(limiter.settle("k", 300, at)).toBe(300); // actual 1200 of a 1000 limit: 200 of debt
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(1200);
    expect((await limiter.check("k", 1)).kind).toBe("deny");
    clock.advance(60_000);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC)).toBe(200); // repaid from the next budget
    let admitted = 0;
    for (let i = 0; i < 200; i++) if ((await limiter.check("k", 10)).kind === "allow") admitted += 10;
    expect(admitted).toBe(800);
  });

  it("works with policy families; unknown subjects settle nothing", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ service: "t", podId: "p" }, store, clock);
    limiter.setFamily("tenant:", POLICY);
    const at = limiter.storeTime();
    expect((await limiter.check("tenant:a", 10)).kind).toBe("allow");
    expect(limiter.settle("tenant:a", 15, at)).toBe(15);
    await limiter.syncNow(true);
    expect(storeCount(store, clock, SPEC, "tenant:a")).toBe(25);
    expect(limiter.settle("nobody", 5, at)).toBe(0);
  });

  it("local-only keys: a refund frees units in the current window, a charge counts against it", () => {
    const clock = new ManualClock();
    clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000 + 1);
    const limiter = new Limiter({ podId: "p" }, undefined, clock);
    limiter.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 10 });
    const at = limiter.storeTime();
    expect(limiter.tryAdmit("k", 10)).toBe(true);
    expect(limiter.tryAdmit("k", 1)).toBe(false);
    expect(limiter.settle("k", -4, at)).toBe(-4);
    expect(limiter.tryAdmit("k", 4)).toBe(true);
    expect(limiter.tryAdmit("k", 1)).toBe(false);
    clock.advance(1000);
    const next = limiter.storeTime();
    expect(limiter.tryAdmit("k", 5)).toBe(true);
    expect(limiter.settle("k", 3, next)).toBe(3);
    expect(limiter.tryAdmit("k", 3)).toBe(false); // 5 + 3 + 3 > 10
    expect(limiter.tryAdmit("k", 2)).toBe(true);
  });

  it("names the bad argument; after shutdown it throws LimiterClosedError", async () => {
    const { limiter } = await setup();
    const at = limiter.storeTime();
    expect(() => limiter.settle("k", 1.5, at)).toThrow(InvalidSettleError);
    expect(() => limiter.settle("k", 1.5, at)).toThrow(/delta/);
    expect(() => limiter.settle("k", 1, Number.NaN)).toThrow(/takenAt/);
    expect(limiter.settle("k", 0, at)).toBe(0);
    await limiter.shutdown();
    expect(() => limiter.settle("k", 1, at)).toThrow(LimiterClosedError);
  });
});
