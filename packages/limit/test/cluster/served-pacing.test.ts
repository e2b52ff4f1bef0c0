// A replica served its unit directly gives its ticket up: it waits for the others' turns before asking
// again, so 4 replicas sharing 50/s cost about one round trip per unit of their share at any overload.

import { describe, expect, it } from "vitest";
import type { RateAlgorithm } from "../../src/cluster/config.js";
import { middleWindows, Simulation } from "../../src/cluster/simulation.js";

const LIMIT = 50;
const REPLICAS = 4;

async function run(algorithm: RateAlgorithm, load: number) {
  const sim = await Simulation.create({
    replicas: REPLICAS,
    rateLimits: { algorithm, requestsPerSecond: LIMIT },
  });
  await sim.drive({ durationMs: 2000, rate: LIMIT * load, seed: 7 });
  const before = sim.store.rounds;
  const r = await sim.drive({ durationMs: 10_000, rate: LIMIT * load, seed: 8 });
  const perReplica = (sim.store.rounds - before) / REPLICAS / 10;
  return { perReplica, windows: middleWindows(r.windows) };
}

describe("round trips of replicas sharing a small limit", () => {
  for (const algorithm of ["sliding_window", "token_bucket"] as const) {
    it(`${algorithm}: 10x to 1000x cost at most 1.5 round trips per unit of a replica's share`, async () => {
      // before: 26 a second per replica from 10x on (an ask after each unit only queued the replica again)
      for (const load of [10, 100, 1000]) {
        const { perReplica, windows } = await run(algorithm, load);
        expect(perReplica, `${load}x`).toBeLessThanOrEqual((1.5 * LIMIT) / REPLICAS);
        for (const w of windows) {
          expect(w.admitted).toBeLessThanOrEqual(algorithm === "token_bucket" ? LIMIT + 1 : LIMIT);
          expect(w.admitted).toBeGreaterThanOrEqual(0.9 * LIMIT);
          for (const n of w.byReplica) expect(n).toBeGreaterThanOrEqual(w.admitted / REPLICAS / 2);
        }
      }
    });
  }
});
