// Several budgets in one decision (docs/protocol.md#s2-12): requests per minute and tokens per
// minute of one route, decided together, all or nothing.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { Budget } from "../../src/cluster/budgets.js";
import { InvalidCostError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { SeededRandom } from "../../src/cluster/prng.js";
import { Simulation } from "../../src/cluster/simulation.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const RPM = { algorithm: "fixed_window", requestsPerMinute: 10, localAllowance: 0.8 } as const;
const TPM = { algorithm: "fixed_window", requestsPerMinute: 100, localAllowance: 0.8 } as const;

async function oneReplica() {
  const clock = new ManualClock();
  clock.set((Math.floor(clock.unixMs() / 60_000) + 1) * 60_000 + 1);
  const limiter = new Limiter({ service: "t", podId: "p" }, new MemoryStore(clock), clock);
  limiter.setPolicy("route:rpm", RPM);
  limiter.setPolicy("route:tpm", TPM);
  await limiter.syncNow(true);
  return { clock, limiter };
}

const call = (tokens: number) => [{ subject: "route:rpm" }, { subject: "route:tpm", cost: tokens }];

describe("checkAll", () => {
  it("a denial on the token budget takes nothing from the request budget", async () => {
    const { limiter } = await oneReplica();
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push((await limiter.checkAll(call(30))).kind);
    expect(kinds).toEqual(["allow", "allow", "allow", "deny"]); // 120 tokens > 100
    // the 4th request's unit of the request budget came back: 7 of 10 are left
    let left = 0;
    for (let i = 0; i < 10; i++) if ((await limiter.checkAll(call(1))).kind === "allow") left++;
    expect(left).toBe(7);
  });

  it("a denial on the first budget never reaches the second; the answer is the denying budget's", async () => {
    const { limiter } = await oneReplica();
    for (let i = 0; i < 10; i++) expect((await limiter.checkAll(call(1))).kind).toBe("allow");
    const d = await limiter.checkAll(call(1));
    expect(d).toMatchObject({ kind: "deny", headers: { limit: 10 } });
    expect((await limiter.check("route:tpm", 90)).kind).toBe("allow"); // 10 + 90: none was taken
  });

  it("admitted: the headers of the budget with the least left; unknown subjects are unlimited", async () => {
    const { limiter } = await oneReplica();
    const d = await limiter.checkAll(call(80));
    expect(d).toMatchObject({ kind: "allow", headers: { limit: 100 } }); // 20 % of tokens left, 90 % of requests
    expect(await limiter.checkAll([{ subject: "nobody" }])).toEqual({ kind: "unlimited" });
    await expect(limiter.checkAll([{ subject: "route:tpm", cost: -1 }])).rejects.toThrow(InvalidCostError);
  });

  it("a list that is not one rejects with InvalidBudgetsError naming the bad part", async () => {
    const { limiter } = await oneReplica();
    const bad = (v: unknown) => limiter.checkAll(v as Budget[]).catch((e: unknown) => e);
    expect(await bad(null)).toMatchObject({ name: "InvalidBudgetsError", field: "budgets" });
    expect(await bad([{ subject: "route:rpm" }, null])).toMatchObject({ field: "budgets[1].subject" });
    expect(await bad([{ subject: 7 }])).toMatchObject({ field: "budgets[0].subject" });
  });

  it("4 replicas, random token counts: each budget counts exactly what was admitted in both", async () => {
    const sim = await Simulation.create({ replicas: 4, warmKeys: false });
    for (const l of sim.limiters) {
      l.setPolicy("route:rpm", { algorithm: "sliding_window", requestsPerSecond: 40, localAllowance: 0.8 });
      l.setPolicy("route:tpm", { algorithm: "sliding_window", requestsPerSecond: 400, localAllowance: 0.8 });
    }
    const rng = new SeededRandom(7);
    let requests = 0;
    let tokens = 0;
    let denied = 0;
    for (let step = 0; step < 3000; step++) {
      for (let j = rng.poisson(0.12); j > 0; j--) {
        const cost = rng.int(1, 40);
        const d = await sim.limiters[rng.int(0, 3)]!.checkAll(call(cost));
        if (d.kind === "deny") denied++;
        else {
          requests++;
          tokens += cost;
        }
      }
      await sim.sync();
      sim.clock.advance(1);
    }
    for (const l of sim.limiters) await l.syncNow(true);
    expect(denied).toBeGreaterThan(0);
    // the units each budget kept over the run are exactly those of the admitted requests: nothing
    // stays charged on one budget for a request the other denied
    const counted = (subject: string) =>
      sim.limiters.reduce(
        (n, l) =>
          n + (l as unknown as { rates: Map<string, { admitted: number }> }).rates.get(subject)!.admitted,
        0,
      );
    expect(counted("route:rpm")).toBe(requests);
    expect(counted("route:tpm")).toBe(tokens);
  });
});
