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

type Algorithm = "fixed" | "sliding" | "token";

async function run(algorithm: Algorithm, replicas: number): Promise<Summary> {
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

const CASES: [Algorithm, number][] = (["fixed", "sliding", "token"] as const).flatMap((a) =>
  [4, 6, 16].map((n): [Algorithm, number] => [a, n]),
);

describe("fair shares for mixed costs: 1:0.9,50:0.1 at 3x a 300/s limit", () => {
  it.each(CASES)("%s, %i replicas: each class within 20 % of its share, 90 % used", async (alg, n) => {
    const s = await run(alg, n);
    expect(s.windowsOver).toBe(0);
    expect(s.starvedReplicas).toBe(0);
    expect(s.utilisation).toBeGreaterThanOrEqual(0.9);
    const ratios = shareRatios(s);
    expect(ratios).toHaveLength(2);
    for (const r of ratios) {
      expect(r).toBeGreaterThanOrEqual(0.8);
      expect(r).toBeLessThanOrEqual(1.2);
    }
  });
});
