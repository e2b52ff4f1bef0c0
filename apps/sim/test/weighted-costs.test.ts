// Weighted costs (issue 17): requests of mixed cost, the cost known up front, never push a window
// over the limit. The cause was direct units (the store's last-mile admits) a waiter of a larger
// cost could not use: charged in the window they were granted in, spent as credit in a later one
// (@resil/limit docs/protocol.md#s3-3). Steps driver, manual clock, the library's defaults.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario, type ScenarioInput } from "../src/scenario.js";

const ALGORITHMS = ["fixed", "sliding", "token"] as const;
const MIX = [
  { cost: 1, weight: 0.9 },
  { cost: 50, weight: 0.1 },
];

async function windowsOver(input: ScenarioInput): Promise<number> {
  const summary = buildReport(await simulate(parseScenario(input), limiterBackend)).summary;
  return summary.windowsOver;
}

describe("weighted costs, charged up front", () => {
  it.each(ALGORITHMS)(
    "%s: the issue's case (6 replicas, 300/s, 3x, 1:0.9,50:0.1, seed 11) stays within the limit",
    async (algorithm) => {
      const over = await windowsOver({
        replicas: 6,
        limits: [{ limit: 300 }],
        load: 3,
        costs: MIX,
        algorithm,
        duration: 10,
        seed: 11,
      });
      expect(over).toBe(0);
    },
  );

  for (const algorithm of ALGORITHMS) {
    it.each([4, 16])(
      `${algorithm}, %i replicas, 1:0.9,50:0.1 at 1x and 3x: 0 windows over`,
      async (replicas) => {
        for (const load of [1, 3]) {
          const over = await windowsOver({
            replicas,
            limits: [{ limit: 300 }],
            load,
            costs: MIX,
            algorithm,
            duration: 5,
            seed: replicas * 7 + load,
          });
          expect({ load, over }).toEqual({ load, over: 0 });
        }
      },
    );
  }

  it("property: any cost mix, 4 or 16 replicas, every algorithm: 0 windows over", async () => {
    const mix = fc.uniqueArray(
      fc.record({ cost: fc.integer({ min: 1, max: 60 }), weight: fc.integer({ min: 1, max: 10 }) }),
      { minLength: 1, maxLength: 3, selector: (c) => c.cost },
    );
    await fc.assert(
      fc.asyncProperty(
        mix,
        fc.constantFrom(4, 16),
        fc.constantFrom(...ALGORITHMS),
        fc.integer({ min: 120, max: 400 }),
        fc.constantFrom(0.8, 2, 5),
        fc.integer({ min: 0, max: 1_000_000 }),
        async (costs, replicas, algorithm, limit, load, seed) => {
          const over = await windowsOver({
            replicas,
            limits: [{ limit }],
            load,
            costs,
            algorithm,
            duration: 3,
            seed,
          });
          expect(over).toBe(0);
        },
      ),
      { numRuns: 24, seed: 17 },
    );
  });
});
