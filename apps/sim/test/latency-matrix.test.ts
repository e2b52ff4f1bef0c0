// @resil/limit's promise under a slow store, on the simulator's virtual clock: for every algorithm,
// 1, 4 and 16 replicas and store latency 0..100 ms (+ up to half as much jitter), library defaults
// otherwise, no window goes over the limit; up to 20 ms at least 90 % of the limit is used, above it
// the stated floor (src/utilisation-floor.ts).

import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { utilisationFloor } from "../src/utilisation-floor.js";

const LATENCIES = [0, 5, 10, 20, 50, 100];

describe.each(["fixed", "sliding", "token"] as const)("%s window, a slow store", (algorithm) => {
  it.each([1, 4, 16])("%i replicas: never over the limit; >= 90 %% used up to 20 ms", async (replicas) => {
    for (const latencyMs of LATENCIES) {
      const s = parseScenario({
        replicas,
        duration: 5,
        algorithm,
        driver: "loop",
        seed: replicas * 101 + latencyMs,
        store: { latencyMs, jitterMs: latencyMs / 2 },
      });
      const summary = buildReport(await simulate(s, limiterBackend)).summary;
      expect({ latencyMs, over: summary.windowsOver }).toEqual({ latencyMs, over: 0 });
      if (latencyMs <= 20) expect(summary.utilisation, `${latencyMs} ms`).toBeGreaterThanOrEqual(0.9);
      expect(summary.utilisation, `${latencyMs} ms`).toBeGreaterThanOrEqual(utilisationFloor(s));
    }
  });
});
