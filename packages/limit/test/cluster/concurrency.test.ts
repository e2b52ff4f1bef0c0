// Concurrency caps: local-only, cluster-wide, and how long slot credit is trusted.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { Simulation } from "../../src/cluster/simulation.js";
import { MemoryStore } from "../../src/store/memory-store.js";

describe("concurrency", () => {
  it("local-only caps, idempotent release and dispose", async () => {
    const limiter = new Limiter({ podId: "p" }, undefined, new ManualClock());
    limiter.setPolicy("k", null, 2);
    const a = await limiter.acquire("k");
    const b = await limiter.acquire("k");
    expect([a.kind, b.kind]).toEqual(["acquired", "acquired"]);
    expect(await limiter.acquire("k")).toEqual({ kind: "denied", max: 2, retryAfter: 1 });
    if (a.kind !== "acquired" || b.kind !== "acquired") return;
    a.slot.release();
    a.slot.release();
    expect(limiter.active("k")).toBe(1);
    {
      using _held = b.slot;
    }
    expect(limiter.active("k")).toBe(0);
    expect(await limiter.acquire("nobody")).toEqual({ kind: "unlimited" });
  });

  it("cluster-wide cap across 3 replicas never exceeds max", async () => {
    const sim = await Simulation.create({ replicas: 3, maxConcurrent: 5 });
    let held = 0;
    for (let i = 0; i < 30; i++) {
      const r = await sim.limiters[i % 3]!.acquire("k");
      if (r.kind === "acquired") held++;
      await sim.sync();
      sim.clock.advance(20);
    }
    expect(held).toBeGreaterThanOrEqual(4);
    expect(held).toBeLessThanOrEqual(5);
  });
});

describe("concurrency credit", () => {
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
    expect(l.slotOutcomeCount("allowLocal")).toBe(1); // still valid at 2000 ms
    if (second.kind === "acquired") second.slot.release();
    clock.advance(1000); // 3000 ms after the send: past 0.75 x 3000
    await l.acquire("c");
    expect(l.slotOutcomeCount("allowLocal")).toBe(1);
    expect(l.slotOutcomeCount("allowCold")).toBe(2);
    expect(l.outcomeCount("allowCold")).toBe(0); // slot grants are not rate decisions
  });
});
