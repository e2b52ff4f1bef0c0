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

describe("fair shares for mixed costs: 1:0.9,50:0.1 at 3x a 300/s limit", () => {
  it.each([4, 16])("token bucket, %i replicas: each class within 20 % of its share, 90 % used", async (n) => {
    const s = await run("token", n);
    expect(s.windowsOver).toBe(0);
    expect(s.starvedReplicas).toBe(0);
    expect(s.utilisation).toBeGreaterThanOrEqual(0.9);
    for (const r of shareRatios(s)) {
      expect(r).toBeGreaterThanOrEqual(0.8);
      expect(r).toBeLessThanOrEqual(1.2);
    }
  });

  // The pool's units wait free until a cost-50 request comes; a sliding window loses what is free at
  // its end, so 90 % is not reached (docs/protocol.md#s3-9): the floor held here is 80 %.
  it.each([4, 16])(
    "sliding window, %i replicas: each class within 20 % of its share, 80 % used",
    async (n) => {
      const s = await run("sliding", n);
      expect(s.windowsOver).toBe(0);
      expect(s.starvedReplicas).toBe(0);
      expect(s.utilisation).toBeGreaterThanOrEqual(0.8);
      for (const r of shareRatios(s)) {
        expect(r).toBeGreaterThanOrEqual(0.8);
        expect(r).toBeLessThanOrEqual(1.2);
      }
    },
  );

  // A fixed window frees nothing before it ends: its last units (fewer than 50) can only go to cost-1
  // requests, which so get more than 1.2x their share (not asserted; docs/protocol.md#s3-9).
  it.each([4, 16])(
    "fixed window, %i replicas: the cost-50 class within 20 % of its share, 90 % used",
    async (n) => {
      const s = await run("fixed", n);
      expect(s.windowsOver).toBe(0);
      expect(s.starvedReplicas).toBe(0);
      expect(s.utilisation).toBeGreaterThanOrEqual(0.9);
      const [, large] = shareRatios(s);
      expect(large).toBeGreaterThanOrEqual(0.8);
    },
  );
});
