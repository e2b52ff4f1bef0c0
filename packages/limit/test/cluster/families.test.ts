// Policy families: one policy for every subject of a prefix, created on first use.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateAlgorithm } from "../../src/cluster/config.js";
import { InvalidPolicyError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { SeededRandom } from "../../src/cluster/prng.js";
import { Simulation, simConfig } from "../../src/cluster/simulation.js";
import { MemoryStore } from "../../src/store/memory-store.js";

/** Poisson arrivals over `subjects` family subjects on every replica; admits per (subject, 1 s window). */
async function driveMany(sim: Simulation, subjects: number, rate: number, durationMs: number, seed: number) {
  const rng = new SeededRandom(seed);
  const admits = new Map<string, number>();
  let denied = 0;
  const end = sim.now() + durationMs;
  while (sim.now() < end) {
    const n = rng.poisson(rate / 1000);
    for (let j = 0; j < n; j++) {
      const subject = `user:${rng.int(0, subjects - 1)}`;
      const t = sim.now();
      const d = await sim.limiters[rng.int(0, sim.limiters.length - 1)]!.check(subject);
      if (d.kind === "deny") denied++;
      else {
        const w = `${subject}@${Math.floor(t / 1000)}`;
        admits.set(w, (admits.get(w) ?? 0) + 1);
      }
    }
    await sim.sync();
    sim.clock.advance(1);
  }
  return { admits, denied };
}

describe("setFamily", () => {
  it("serves 100,000 distinct subjects with no setPolicy", async () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p" }, new MemoryStore(clock), clock);
    limiter.setFamily("ip:", { requestsPerSecond: 5 });
    let allowed = 0;
    for (let i = 0; i < 100_000; i++) {
      const d = limiter.tryCheck(`ip:${i}`) ?? (await limiter.check(`ip:${i}`));
      if (d.kind === "allow" && d.headers.limit === 5) allowed++;
    }
    expect(allowed).toBe(100_000);
    expect(limiter.hasPolicy("ip:99999")).toBe(true);
    expect(limiter.hasPolicy("other")).toBe(false);
    expect(limiter.tryCheck("other")).toBeUndefined(); // no family: unknown, as before
    await limiter.shutdown();
  }, 60_000);

  for (const algorithm of ["fixed_window", "sliding_window", "token_bucket"] as RateAlgorithm[]) {
    // a token bucket admits its burst plus a second's refill in a 1 s window: 20
    const most = algorithm === "token_bucket" ? 20 : 10;
    it(`${algorithm}: per-subject limits hold over 4 replicas (0 windows over ${most})`, async () => {
      const sim = await Simulation.create({ replicas: 4 });
      for (const l of sim.limiters) l.setFamily("user:", simConfig({ algorithm, requestsPerSecond: 10 }));
      // 40 subjects at 3x their limit each, spread over the replicas at random
      const { admits, denied } = await driveMany(sim, 40, 40 * 30, 4000, 7);
      expect(denied).toBeGreaterThan(0);
      const over = [...admits.values()].filter((n) => n > most);
      expect(over).toEqual([]);
      expect(sim.limiters[0]!.size).toBeGreaterThan(0);
    });
  }

  it("caps concurrency per subject across replicas", async () => {
    const sim = await Simulation.create({ replicas: 3 });
    for (const l of sim.limiters) l.setFamily("job:", null, 4);
    const held = new Map<string, number>();
    for (let i = 0; i < 120; i++) {
      const subject = `job:${i % 5}`;
      const r = await sim.limiters[i % 3]!.acquire(subject);
      if (r.kind === "acquired") held.set(subject, (held.get(subject) ?? 0) + 1);
      await sim.sync();
      sim.clock.advance(5);
    }
    expect(held.size).toBe(5);
    for (const n of held.values()) {
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(4);
    }
    // a cap-only family: no rate limit
    expect(sim.limiters[0]!.tryCheck("job:9")).toEqual({ kind: "unlimited" });
  });

  it("the longest prefix wins, setPolicy overrides, an empty family shadows", () => {
    const l = new Limiter({ podId: "p" }, undefined, new ManualClock());
    l.setFamily("u:", { requestsPerSecond: 5 });
    l.setFamily("u:vip:", { requestsPerSecond: 50 });
    l.setFamily("u:free:", null);
    const limit = (s: string) => {
      const d = l.tryCheck(s);
      return d?.kind === "allow" ? d.headers.limit : d?.kind;
    };
    expect(limit("u:1")).toBe(5);
    expect(limit("u:vip:1")).toBe(50);
    expect(l.tryCheck("u:free:1")).toBeUndefined();
    l.setPolicy("u:2", { requestsPerSecond: 7 });
    expect(limit("u:2")).toBe(7);
    expect(l.hasFamily("u:vip:")).toBe(true);
    l.removeFamily("u:vip:");
    expect(l.hasFamily("u:vip:")).toBe(false);
    expect(limit("u:vip:1")).toBe(5); // moved to the next longest prefix
    // a new longer prefix takes its subjects from the shorter one
    l.setFamily("u:1", { requestsPerSecond: 9 });
    expect(limit("u:1")).toBe(9);
    l.removeFamily("u:");
    expect(l.hasPolicy("u:vip:1")).toBe(false);
    expect(l.hasPolicy("u:2")).toBe(true); // explicit: stays
  });

  it("setting a family again keeps live state; other limits start fresh; syncPolicies keeps family subjects", () => {
    const l = new Limiter({ podId: "p" }, undefined, new ManualClock());
    l.setFamily("t:", { algorithm: "fixed_window", requestsPerSecond: 3 });
    for (let i = 0; i < 3; i++) expect(l.tryAdmit("t:a")).toBe(true);
    expect(l.tryAdmit("t:a")).toBe(false);
    l.setFamily("t:", { algorithm: "fixed_window", requestsPerSecond: 3 });
    expect(l.tryAdmit("t:a")).toBe(false);
    l.syncPolicies([{ subject: "x", rateLimits: { requestsPerSecond: 1 } }]);
    expect(l.hasPolicy("t:a")).toBe(true);
    l.setFamily("t:", { algorithm: "fixed_window", requestsPerSecond: 4 });
    expect(l.tryCheck("t:a")).toMatchObject({ kind: "allow", headers: { limit: 4 } });
  });

  it("rejects an empty or non-string prefix, naming the field", () => {
    const l = new Limiter({ podId: "p" });
    expect(() => l.setFamily("", { requestsPerSecond: 1 })).toThrow(InvalidPolicyError);
    expect(() => l.setFamily(3 as unknown as string)).toThrow(/prefix/);
    expect(() => l.setFamily("a:", { requestsPerSecond: -1 })).toThrow(/requestsPerSecond/);
  });
});
