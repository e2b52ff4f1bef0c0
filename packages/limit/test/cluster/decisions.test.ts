// What tryCheck, tryAdmit and check decide: credit, cost, local-only, fail-open, overruns.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { InvalidCostError, LimiterClosedError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { Simulation } from "../../src/cluster/simulation.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10, localAllowance: 0.8 } as const;

function limiterOn(clock = new ManualClock()) {
  const store = new MemoryStore(clock);
  return { clock, store, limiter: new Limiter({ service: "t", podId: "p" }, store, clock) };
}

describe("decisions", () => {
  it("tryCheck: undefined for an unknown subject, unlimited for a concurrency-only one, no promise", () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("cc", null, 3);
    expect(limiter.tryCheck("nobody")).toBeUndefined();
    expect(limiter.tryCheck("cc")).toEqual({ kind: "unlimited" });
    limiter.setPolicy("k", FIXED_10);
    const first = limiter.tryCheck("k"); // cold credit: decided without waiting
    expect(first).toMatchObject({ kind: "allow" });
    expect(first).not.toBeInstanceOf(Promise);
  });

  it("tryAdmit: tryCheck's answers as booleans, undefined when undecided, the same errors", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("cc", null, 3);
    expect(limiter.tryAdmit("nobody")).toBeUndefined();
    expect(limiter.tryAdmit("cc")).toBe(true);
    expect(() => limiter.tryAdmit("cc", 1.5)).toThrow(InvalidCostError);
    // local-only: the same sequence as tryCheck's test below, counted the same way
    const clock = new ManualClock();
    const local = new Limiter({ podId: "p" }, undefined, clock);
    local.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 3 });
    const got = [];
    for (let i = 0; i < 5; i++) got.push(local.tryAdmit("k"));
    expect(got).toEqual([true, true, true, false, false]);
    expect(local.outcomeCount("allowLocal")).toBe(3);
    expect(local.tryAdmit("k", 4)).toBe(false); // more than the limit: denied, never admitted
    clock.advance(1000);
    expect(local.tryAdmit("k")).toBe(true);
    await local.shutdown();
    expect(() => local.tryAdmit("k")).toThrow(LimiterClosedError);
  });

  it("tryAdmit spends the same credit as tryCheck, with no decision object", async () => {
    const runs = [];
    for (const admit of [true, false]) {
      const sim = await Simulation.create({
        replicas: 2,
        rateLimits: { algorithm: "sliding_window", requestsPerSecond: 20 },
      });
      const l = sim.limiters[0]!;
      const seq: Array<boolean | undefined> = [];
      for (let i = 0; i < 40; i++) {
        seq.push(admit ? l.tryAdmit(sim.subject) : toBool(l.tryCheck(sim.subject)));
        if (i % 8 === 7) await sim.sync();
      }
      runs.push({ seq, local: l.outcomeCount("allowLocal"), denied: l.outcomeCount("denyLocal") });
    }
    expect(runs[0]).toEqual(runs[1]);
    // credit runs out between syncs: both answer undefined (call check) at the same calls
    expect(runs[0]!.seq).toContain(true);
    expect(runs[0]!.seq).toContain(undefined);
  });

  it("cost counts units against the limit", async () => {
    const sim = await Simulation.create({
      replicas: 1,
      rateLimits: { algorithm: "fixed_window", requestsPerMinute: 10 },
    });
    sim.alignTo(60_000, 1);
    const l = sim.limiters[0]!;
    let units = 0;
    for (let i = 0; i < 10; i++) {
      if ((await l.check("k", 3)).kind === "allow") units += 3;
      await sim.sync();
    }
    expect(units).toBe(9);
    expect((await l.check("k", 1)).kind).toBe("allow");
    expect((await l.check("k", 1)).kind).toBe("deny");
  });

  it("local-only without a store: exact limit, Retry-After to the window end", async () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p" }, undefined, clock);
    limiter.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 3 });
    const kinds = [];
    for (let i = 0; i < 5; i++) kinds.push(limiter.tryCheck("k")?.kind);
    expect(kinds).toEqual(["allow", "allow", "allow", "deny", "deny"]);
    clock.advance(250);
    const d = limiter.tryCheck("k");
    expect(d).toMatchObject({ kind: "deny", headers: { retryAfter: 1, remaining: 0, limit: 3 } });
    clock.advance(750);
    expect(limiter.tryCheck("k")?.kind).toBe("allow");
    expect(limiter.hasStore()).toBe(false);
  });

  it("fail-open: a store down longer than cacheTtlMs admits everything as degraded", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ podId: "p", onStoreUnavailable: "allow" }, store, clock);
    limiter.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 2, cacheTtlMs: 50 });
    store.setFailing(true);
    await limiter.syncNow(true);
    clock.advance(100);
    for (let i = 0; i < 10; i++) expect((await limiter.check("k")).kind).toBe("allow");
    expect(limiter.outcomeCount("allowDegraded")).toBe(10);
  });

  it("a slow store: the waiting request is decided on the last view as an overrun", async () => {
    const { clock, store, limiter } = limiterOn();
    limiter.setPolicy("k", { algorithm: "sliding_window", requestsPerSecond: 5, redisTimeoutMs: 10 });
    await limiter.syncNow(true);
    store.setLatency(40);
    for (let i = 0; i < 8; i++) {
      const pending = limiter.check("k");
      await clock.advanceAsync(50);
      await pending;
    }
    expect(limiter.outcomeCount("allowOverrun")).toBeGreaterThan(0);
  });
});

function toBool(d: { kind: string } | undefined): boolean | undefined {
  return d === undefined ? undefined : d.kind !== "deny";
}
