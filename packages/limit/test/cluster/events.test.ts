// Operator visibility: events when the store turns failing, recovers, and on overruns; the counts in metrics().

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { LimiterEvent } from "../../src/cluster/events.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const FIXED_100 = { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 } as const;

function sample(l: Limiter, name: string): number | undefined {
  return l.metrics().samples.find((s) => s.name === name)?.value;
}

describe("limiter events", () => {
  it("storeFailing (error), storeRecovered, and the counts in metrics(); a throwing listener is ignored", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const events: LimiterEvent[] = [];
    const limiter = new Limiter(
      {
        service: "t",
        podId: "p",
        onEvent: (e) => {
          events.push(e);
          throw new Error("listener bug");
        },
      },
      store,
      clock,
    );
    limiter.setPolicy("k", FIXED_100);
    await limiter.syncNow(true);
    store.setFailing(true);
    await limiter.syncNow(true);
    await limiter.syncNow(true);
    expect(events.map((e) => e.type)).toEqual(["storeFailing"]);
    expect(events[0]).toMatchObject({ cause: "error" });
    clock.advance(1000);
    expect(sample(limiter, "resil_store_failing")).toBe(1);
    store.setFailing(false);
    await limiter.syncNow(true);
    expect(events.map((e) => e.type)).toEqual(["storeFailing", "storeRecovered"]);
    expect(events[1]).toMatchObject({ outageMs: 1000 });
    clock.advance(1000);
    expect(sample(limiter, "resil_store_failing")).toBe(0);
    expect(sample(limiter, "resil_store_outages_total")).toBe(1);
    expect(sample(limiter, "resil_store_recoveries_total")).toBe(1);
    await limiter.shutdown();
  });

  it("storeFailing (stalled) once a round is unanswered past cacheTtlMs", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const events: LimiterEvent[] = [];
    const limiter = new Limiter({ service: "t", podId: "p", onEvent: (e) => events.push(e) }, store, clock);
    limiter.setPolicy("k", FIXED_100);
    await limiter.syncNow(true);
    store.setLatency(800); // within roundTimeoutMs: a stall, not a failed round
    const stalled = limiter.syncNow(true);
    await clock.advanceAsync(250);
    while (limiter.tryAdmit("k") === true);
    expect(events.map((e) => e.type)).toEqual(["storeFailing"]);
    expect(events[0]).toMatchObject({ cause: "stalled" });
    await clock.advanceAsync(600);
    await stalled;
    expect(events.map((e) => e.type)).toEqual(["storeFailing", "storeRecovered"]);
    store.setLatency(0);
    await limiter.shutdown();
  });

  it("overrun when a lone replica decides without a reply", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const events: LimiterEvent[] = [];
    const limiter = new Limiter({ service: "t", podId: "p", onEvent: (e) => events.push(e) }, store, clock);
    limiter.setPolicy("k", { ...FIXED_100, redisTimeoutMs: 10 });
    await limiter.syncNow(true);
    clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000 + 10);
    await limiter.syncNow(true);
    while (limiter.tryAdmit("k") === true);
    store.setLatency(100);
    const pending = limiter.check("k");
    await clock.advanceAsync(150);
    expect((await pending).kind).toBe("allow");
    expect(limiter.outcomeCount("allowOverrun")).toBe(1);
    expect(events).toEqual([{ type: "overrun", subject: "k", at: expect.any(Number) }]);
    await clock.advanceAsync(200);
    store.setLatency(0);
    await limiter.shutdown();
  });

  it("rejects an onEvent that is not a function", () => {
    expect(() => new Limiter({ onEvent: 3 as never })).toThrow(/onEvent/);
  });
});
