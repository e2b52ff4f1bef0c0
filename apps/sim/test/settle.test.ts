// Reserve then settle (issue 17): requests admitted on an estimate, settled 100 ms later with the
// actual cost (estimate x uniform 0.5..2). A window may go over its limit by the extra charge settled
// in it (the debt bound, @resil/limit docs/protocol.md#s2-10) and by nothing more; with a fixed window
// that debt is repaid from the next window, so every run of windows stays within k x limit plus the
// last window's extra charge. At least 90 % of the limit is used.

import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { parseSettle } from "../src/settle.js";

const ALGORITHMS = ["fixed", "sliding", "token"] as const;
const LIMIT = 2000;

describe("reserve then settle, estimates off by 0.5x to 2x", () => {
  for (const algorithm of ALGORITHMS) {
    it.each([4, 16])(
      `${algorithm}, %i replicas: within the debt bound, at least 90 percent used`,
      async (replicas) => {
        const s = parseScenario({
          replicas,
          limits: [{ limit: LIMIT }],
          load: 3,
          costs: [{ cost: 10, weight: 1 }],
          settle: parseSettle("0.5..2"),
          algorithm,
          duration: 5,
          seed: replicas * 31 + 7,
        });
        const run = await simulate(s, limiterBackend);
        const report = buildReport(run);
        const { summary } = report;
        expect(summary.settledExtra).toBeGreaterThan(0);
        expect(summary.windowsOver).toBe(0);
        expect(summary.utilisation).toBeGreaterThanOrEqual(0.9);
        if (algorithm === "fixed") {
          // the debt is repaid: windows 1..k together stay within k x limit + window k's extra charge
          let total = 0;
          report.windows.forEach((w, i) => {
            total += w.admitted;
            expect(total).toBeLessThanOrEqual((i + 1) * LIMIT + (w.extra ?? 0));
          });
        }
      },
    );
  }

  it("refunds are taken back: with actual = half the estimate, about twice as many requests are admitted", async () => {
    const base = {
      replicas: 4,
      limits: [{ limit: 500 }],
      load: 4,
      costs: [{ cost: 10, weight: 1 }],
      duration: 4,
      seed: 5,
    };
    const plain = buildReport(await simulate(parseScenario(base), limiterBackend)).summary;
    const halved = buildReport(
      await simulate(parseScenario({ ...base, settle: { min: 0.5, max: 0.5, afterMs: 1 } }), limiterBackend),
    ).summary;
    const admittedRequests = (x: typeof plain) => x.requests - x.deniedRequests;
    expect(halved.windowsOver).toBe(0);
    expect(admittedRequests(halved)).toBeGreaterThan(1.6 * admittedRequests(plain));
  });
});
