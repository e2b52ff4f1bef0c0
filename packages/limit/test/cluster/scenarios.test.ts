// The 17 simulation scenarios of docs/protocol.md#s6 with their bounds: test k is docs/protocol.md#s6-k.
import { describe, expect, it } from "vitest";
import type { RateAlgorithm } from "../../src/cluster/config.js";
import type { Decision } from "../../src/cluster/decision.js";
import { middleWindows, pickRoundRobin, Simulation, simConfig } from "../../src/cluster/simulation.js";

const COUNTERS: RateAlgorithm[] = ["fixed_window", "sliding_window"];

function admitted(d: Decision): boolean {
  return d.kind !== "deny";
}

describe("1. never over the limit", () => {
  for (const algorithm of COUNTERS) {
    for (const replicas of [1, 2, 4, 8]) {
      it(`${algorithm}, N ${replicas}: every 1 s window <= 40 at 0.5x..50x load`, async () => {
        for (const load of [0.5, 1, 5, 50]) {
          const sim = await Simulation.create({ replicas, rateLimits: { algorithm, requestsPerSecond: 40 } });
          const r = await sim.drive({ durationMs: 5000, rate: 40 * load, seed: replicas * 100 + load * 10 });
          for (const w of r.windows)
            expect(w.admitted, `load ${load}x at ${w.start}`).toBeLessThanOrEqual(40);
          if (load >= 5) expect(r.admitted).toBeGreaterThan(0);
        }
      });
    }
  }
});

describe("2. token-bucket envelope", () => {
  for (const replicas of [1, 4]) {
    it(`N ${replicas}: any run of admits fits burst + elapsed / period + 1`, async () => {
      const sim = await Simulation.create({
        replicas,
        rateLimits: { algorithm: "token_bucket", requestsPerSecond: 20, burstSize: 5 },
      });
      const r = await sim.drive({ durationMs: 5000, rate: 200, seed: 7 + replicas });
      const t = r.admitTimes;
      expect(t.length).toBeGreaterThan(50);
      for (let i = 0; i < t.length; i++) {
        for (let j = i; j < t.length; j++) {
          const tau = t[j]! - t[i]!;
          expect(j - i + 1).toBeLessThanOrEqual(5 + tau / 50 + 1);
        }
      }
    });
  }
});

describe("3. no starvation", () => {
  for (const algorithm of COUNTERS) {
    for (const replicas of [1, 4]) {
      it(`${algorithm}, N ${replicas}: middle windows admit >= 95 of 100 at 5x load`, async () => {
        const sim = await Simulation.create({ replicas, rateLimits: { algorithm, requestsPerSecond: 100 } });
        const r = await sim.drive({ durationMs: 6000, rate: 500, seed: 31 + replicas });
        for (const w of middleWindows(r.windows)) {
          expect(w.admitted).toBeGreaterThanOrEqual(95);
          expect(w.admitted).toBeLessThanOrEqual(100);
        }
      });
    }
  }
});

it("4. skew: all traffic on one of 4 replicas still gets 90..100 per window", async () => {
  const sim = await Simulation.create({
    replicas: 4,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: 100 },
  });
  const r = await sim.drive({ durationMs: 6000, rate: 400, seed: 4, pick: () => 0 });
  for (const w of middleWindows(r.windows)) {
    expect(w.admitted).toBeGreaterThanOrEqual(90);
    expect(w.admitted).toBeLessThanOrEqual(100);
  }
});

it("5. token bucket: the burst, then the rate", async () => {
  const sim = await Simulation.create({
    replicas: 2,
    rateLimits: { algorithm: "token_bucket", requestsPerSecond: 50, burstSize: 20 },
  });
  let burst = 0;
  for (let i = 0; i < 30; i++) if (admitted(await sim.check(i % 2))) burst++;
  expect(burst).toBeGreaterThanOrEqual(19);
  expect(burst).toBeLessThanOrEqual(20);
  await sim.advanceSyncing(1000, 1);
  const r = await sim.drive({ durationMs: 60_000, rate: 150, seed: 5 });
  expect(Math.abs(r.admitted - 3020)).toBeLessThanOrEqual(30.2);
});

describe("6. Retry-After never undershoots", () => {
  for (const algorithm of ["fixed_window", "sliding_window", "token_bucket"] as const) {
    it(`${algorithm}: waiting exactly Retry-After admits >= 99 % of the time`, async () => {
      const sim = await Simulation.create({ replicas: 2, rateLimits: { algorithm, requestsPerMinute: 30 } });
      let trials = 0;
      let admittedAfter = 0;
      for (let trial = 0; trial < 40; trial++) {
        let denial: { replica: number; retryAfter: number } | undefined;
        for (let i = 0; i < 200 && denial === undefined; i++) {
          const replica = i % 2;
          const d = await sim.check(replica);
          if (d.kind === "deny") denial = { replica, retryAfter: d.headers.retryAfter! };
          await sim.sync();
          sim.clock.advance(1 + (trial % 7));
        }
        if (denial === undefined) continue;
        trials++;
        expect(denial.retryAfter).toBeGreaterThanOrEqual(1);
        await sim.advanceSyncing(denial.retryAfter * 1000, 50);
        if (admitted(await sim.check(denial.replica))) admittedAfter++;
      }
      expect(trials).toBeGreaterThanOrEqual(20);
      expect(admittedAfter / trials).toBeGreaterThanOrEqual(0.99);
    });
  }
});

it("7. fail-static: a failing store enforces limit / N per replica", async () => {
  const sim = await Simulation.create({
    replicas: 4,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: 100 },
  });
  await sim.drive({ durationMs: 1000, rate: 50, seed: 70 });
  sim.store.setFailing(true);
  for (let i = 0; i < 30; i++) {
    sim.clock.advance(100);
    await sim.sync();
  }
  const r = await sim.drive({ durationMs: 5000, rate: 1000, seed: 71 });
  for (const w of middleWindows(r.windows)) {
    expect(w.admitted).toBeGreaterThanOrEqual(96);
    expect(w.admitted).toBeLessThanOrEqual(104);
  }
  expect(sim.limiters[0]!.outcomeCount("allowDegraded")).toBeGreaterThan(0);
  expect(sim.limiters[0]!.syncFailures()).toBeGreaterThan(0);
});

describe("8. cold start", () => {
  for (const limit of [8, 40, 400]) {
    it(`limit ${limit}, N 4: round-robin checks without syncs admit at most the limit`, async () => {
      const sim = await Simulation.create({
        replicas: 4,
        rateLimits: { algorithm: "fixed_window", requestsPerSecond: limit },
      });
      sim.alignTo(1000, 1);
      let total = 0;
      for (let i = 0; i < 5 * limit; i++) if (admitted(await sim.check(i % 4))) total++;
      expect(total).toBeLessThanOrEqual(limit);
      expect(total).toBeGreaterThanOrEqual(limit / 2);
      expect(sim.limiters[0]!.outcomeCount("allowCold")).toBeGreaterThan(0);
    });

    it(`limit ${limit}, N 4, keys warmed with credit before: at most the limit`, async () => {
      const sim = await Simulation.create({
        replicas: 4,
        warmKeys: true,
        rateLimits: { algorithm: "fixed_window", requestsPerSecond: limit },
      });
      sim.alignTo(1000, 1);
      let total = 0;
      for (let i = 0; i < 5 * limit; i++) if (admitted(await sim.check(i % 4))) total++;
      expect(total).toBeLessThanOrEqual(limit);
    });
  }
});

it("9. config change: a changed limit starts fresh, republishing keeps the state", async () => {
  const sim = await Simulation.create({ replicas: 1 });
  const l = sim.limiters[0]!;
  sim.alignTo(60_000, 1);
  const run = async (n: number) => {
    let ok = 0;
    for (let i = 0; i < n; i++) {
      if (admitted(await l.check("k"))) ok++;
      await sim.sync();
    }
    return ok;
  };
  l.setPolicy("k", simConfig({ algorithm: "fixed_window", requestsPerMinute: 10 }));
  expect(await run(20)).toBe(10);
  l.setPolicy("k", simConfig({ algorithm: "fixed_window", requestsPerMinute: 20 }));
  expect(await run(30)).toBe(20);
  l.setPolicy("k", simConfig({ algorithm: "fixed_window", requestsPerMinute: 20 }));
  expect((await l.check("k")).kind).toBe("deny");
});

it("10. a crashed replica's concurrency slots come back with its lease", async () => {
  const sim = await Simulation.create({ replicas: 2, maxConcurrent: 3 });
  const [pod0, pod1] = sim.limiters as [(typeof sim.limiters)[0], (typeof sim.limiters)[0]];
  for (let i = 0; i < 3; i++) {
    expect((await pod0.acquire("k")).kind).toBe("acquired");
    await sim.sync();
  }
  expect(pod0.active("k")).toBe(3);
  sim.clock.advance(200);
  await sim.sync();
  expect((await pod1.acquire("k")).kind).toBe("denied");
  // pod-0 dies holding its three slots: it never syncs again
  let waited = 0;
  let back = false;
  while (!back && waited <= 7000) {
    sim.clock.advance(100);
    waited += 100;
    await pod1.syncNow(false);
    const r = await pod1.acquire("k");
    back = r.kind === "acquired";
  }
  expect(back).toBe(true);
  expect(waited).toBeLessThanOrEqual(6000);
});

it("11. last mile: 3 rps across 4 replicas admits exactly 3 per window", async () => {
  const sim = await Simulation.create({
    replicas: 4,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: 3 },
  });
  const r = await sim.drive({ durationMs: 5000, rate: 100, seed: 11 });
  for (const w of r.windows) expect(w.admitted).toBeLessThanOrEqual(3);
  for (const w of middleWindows(r.windows)) expect(w.admitted).toBe(3);
});

it("12. waits stay rare below the limit", async () => {
  const sim = await Simulation.create({
    replicas: 4,
    rateLimits: { algorithm: "sliding_window", requestsPerMinute: 6000 },
  });
  const r = await sim.drive({ durationMs: 20_000, rate: 90, seed: 12 });
  expect(r.denied).toBe(0);
  const waits = sim.limiters.reduce(
    (s, l) => s + l.outcomeCount("allowSync") + l.outcomeCount("denySync"),
    0,
  );
  expect(waits * 100).toBeLessThan(r.checks);
});

it("13. outage payback: fail-static admits are charged after recovery", async () => {
  const sim = await Simulation.create({
    replicas: 2,
    rateLimits: { algorithm: "fixed_window", requestsPerMinute: 100 },
  });
  sim.alignTo(60_000, 1);
  sim.store.setFailing(true);
  for (let i = 0; i < 10; i++) {
    sim.clock.advance(100);
    await sim.sync();
  }
  let during = 0;
  for (let i = 0; i < 100; i++) if (admitted(await sim.check(i % 2))) during++;
  expect(during).toBeGreaterThanOrEqual(96);
  expect(during).toBeLessThanOrEqual(100);
  sim.store.setFailing(false);
  for (let i = 0; i < 30; i++) {
    sim.clock.advance(50);
    await sim.sync();
  }
  let after = 0;
  for (let i = 0; i < 50; i++) {
    if (admitted(await sim.check(i % 2))) after++;
    await sim.sync();
  }
  expect(during + after).toBeLessThanOrEqual(104);
});

it("14. disabled and unknown keys are unlimited", async () => {
  const sim = await Simulation.create({
    replicas: 1,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: 1, enabled: false },
  });
  const l = sim.limiters[0]!;
  for (let i = 0; i < 5; i++) expect(await l.check("k")).toEqual({ kind: "unlimited" });
  expect(await l.check("nobody")).toEqual({ kind: "unlimited" });
  expect(l.hasPolicy("k")).toBe(false);
});

it("15. adaptive sync: a quiet key syncs about once a second", async () => {
  const sim = await Simulation.create({
    replicas: 2,
    rateLimits: { algorithm: "fixed_window", requestsPerMinute: 6000 },
  });
  await sim.drive({ durationMs: 1000, rate: 10, seed: 150 });
  const before = sim.limiters.map((l) => l.syncRounds());
  const r = await sim.drive({ durationMs: 10_000, rate: 10, seed: 151 });
  expect(r.denied).toBe(0);
  sim.limiters.forEach((l, i) => {
    expect(l.syncRounds() - before[i]!).toBeLessThanOrEqual(13);
  });
});

it("16. local-only: each replica enforces the full limit, without the store", async () => {
  const sim = await Simulation.create({
    replicas: 2,
    rateLimits: { algorithm: "fixed_window", requestsPerMinute: 10, localAllowance: 1 },
  });
  sim.alignTo(60_000, 1);
  sim.store.setFailing(true); // local-only keys never need the store
  for (const l of sim.limiters) {
    let ok = 0;
    for (let i = 0; i < 20; i++) {
      if (admitted(await l.check("k"))) ok++;
      await sim.sync();
    }
    expect(ok).toBe(10);
    expect(l.outcomeCount("allowDegraded")).toBe(0);
  }
});

it("17. headers: limit of the head window, remaining down to 0, Retry-After to the window end", async () => {
  const sim = await Simulation.create({
    replicas: 1,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: 100, requestsPerMinute: 5 },
  });
  sim.alignTo(60_000);
  const start = sim.now();
  const l = sim.limiters[0]!;
  const remaining: number[] = [];
  for (let i = 0; i < 5; i++) {
    const d = await l.check("k");
    expect(d.kind).toBe("allow");
    if (d.kind !== "allow") return;
    expect(d.headers.limit).toBe(5);
    expect(d.headers.reset).toBe((start + 60_000) / 1000);
    remaining.push(d.headers.remaining);
    await sim.sync();
  }
  expect(remaining).toEqual([4, 3, 2, 1, 0]);
  await sim.advanceSyncing(15_000, 100);
  const d = await l.check("k");
  expect(d.kind).toBe("deny");
  if (d.kind !== "deny") return;
  expect(d.headers.retryAfter).toBe(45);
  expect(d.headers.remaining).toBe(0);
  expect(d.headers.limit).toBe(5);
});

it("the simulation is deterministic: the same seed gives the same run", async () => {
  const run = async () => {
    const sim = await Simulation.create({
      replicas: 3,
      rateLimits: { algorithm: "sliding_window", requestsPerSecond: 30 },
    });
    return (await sim.drive({ durationMs: 2000, rate: 120, seed: 99, pick: pickRoundRobin })).windows;
  };
  expect(await run()).toEqual(await run());
});
