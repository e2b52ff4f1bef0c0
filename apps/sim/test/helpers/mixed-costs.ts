// Issue 17's mixed-cost case: a sliding window, costs 1:0.9,50:0.1 at 3x a 300/s limit, 60 s.

import { type Backend, simulate } from "../../src/engine.js";
import { buildReport, type Summary } from "../../src/report.js";
import { parseScenario } from "../../src/scenario.js";

/** Runs the case on `backend`, decided on arrival or, with `waitMs`, through each replica's Pacer. */
export async function slidingMixedRun(
  backend: Backend,
  replicas: number,
  seed: number,
  waitMs?: number,
): Promise<Summary> {
  const input = {
    replicas,
    limits: [{ limit: 300 }],
    load: 3,
    costs: [
      { cost: 1, weight: 0.9 },
      { cost: 50, weight: 0.1 },
    ],
    algorithm: "sliding" as const,
    duration: 60,
    seed,
    ...(waitMs === undefined ? {} : { wait: { maxWaitMs: waitMs } }),
  };
  return buildReport(await simulate(parseScenario(input), backend)).summary;
}
