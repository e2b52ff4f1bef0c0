// Fair shares for mixed costs (issue 17): 10 % of the requests cost 50 units, offered at 3x the limit.
// A cost-50 request needs 50 units at once; the store keeps them together for it (the key's pool,
// @resil/limit docs/protocol.md#s3-9). Steps driver, manual clock, the library's defaults, 60 s.

import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport, type Summary } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";

const MIX = [
  { cost: 1, weight: 0.9 },
  { cost: 50, weight: 0.1 },
];

async function run(algorithm: "fixed" | "sliding" | "token", replicas: number): Promise<Summary> {
  const input = {
    replicas,
    limits: [{ limit: 300 }],
    load: 3,
    costs: MIX,
    algorithm,
    duration: 60,
    seed: 11,
  };
  return buildReport(await simulate(parseScenario(input), limiterBackend)).summary;
}

/** Each class's share of the admitted units over its share of the offered units (1: exactly fair). */
function shareRatios(s: Summary): number[] {
  return s.costClasses.map((c) => c.admittedShare / c.offeredShare);
}

/** Each class within 20 % of its share of the offered units, no replica starved, 0 windows over. */
function expectFair(s: Summary): void {
  expect(s.windowsOver).toBe(0);
  expect(s.starvedReplicas).toBe(0);
  const ratios = shareRatios(s);
  expect(ratios).toHaveLength(2);
  for (const r of ratios) {
    expect(r).toBeGreaterThanOrEqual(0.8);
    expect(r).toBeLessThanOrEqual(1.2);
  }
}

const REPLICAS = [4, 6, 16];

describe("fair shares for mixed costs: 1:0.9,50:0.1 at 3x a 300/s limit", () => {
  // A fixed window keeps the pool to its end: its last units, too few for a cost-50 request, are not
  // handed to cost-1 ones (docs/protocol.md#s3-9).
  it.each(REPLICAS)(
    "fixed window, %i replicas: each class within 20 % of its share, 90 % used",
    async (n) => {
      const s = await run("fixed", n);
      expectFair(s);
      expect(s.utilisation).toBeGreaterThanOrEqual(0.9);
    },
  );

  it.each(REPLICAS)(
    "token bucket, %i replicas: each class within 20 % of its share, 90 % used",
    async (n) => {
      const s = await run("token", n);
      expectFair(s);
      expect(s.utilisation).toBeGreaterThanOrEqual(0.9);
    },
  );

  // 90 % is at the edge of reach here: fair central limiters use 86-90 % of the limit on the same run
  // (sliding-ceiling.test.ts holds the Limiter to 95 % of one; docs/protocol.md#s3-9). The floor held here is 80 %.
  it.each(REPLICAS)(
    "sliding window, %i replicas: each class within 20 % of its share, 80 % used",
    async (n) => {
      const s = await run("sliding", n);
      expectFair(s);
      expect(s.utilisation).toBeGreaterThanOrEqual(0.8);
    },
  );
});
