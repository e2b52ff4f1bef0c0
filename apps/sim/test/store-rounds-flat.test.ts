// Store round trips per replica do not grow with the offered load once the limit binds: 4 replicas
// sharing 50/s behind a store with a round trip like a local Redis's (about a millisecond, with
// jitter), on the virtual clock with each replica's own loop. A check that started waiting while a
// round was in flight used to ask again as soon as that round paced its replica, and came back empty.

import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";

const REPLICAS = 4;
const LIMIT = 50;

async function run(algorithm: "fixed" | "sliding" | "token", load: number, latencyMs: number) {
  const s = parseScenario({
    replicas: REPLICAS,
    limits: [{ limit: LIMIT, window: "second" }],
    duration: 10,
    algorithm,
    load,
    driver: "loop",
    seed: 5,
    store: { latencyMs, jitterMs: latencyMs },
  });
  const { summary } = buildReport(await simulate(s, limiterBackend));
  return { perReplica: summary.storeCallsPerSecond / REPLICAS, summary };
}

describe.each(["sliding", "token", "fixed"] as const)("%s window, 4 replicas sharing 50/s", (algorithm) => {
  it.each([0.3, 1, 2])(
    "store round trip %f ms: rounds per replica at 100x within 1.2x of 1x",
    async (latency) => {
      const base = await run(algorithm, 1, latency);
      const hot = await run(algorithm, 100, latency);
      expect(hot.perReplica, `1x: ${base.perReplica}`).toBeLessThanOrEqual(1.2 * base.perReplica);
      expect(hot.summary.windowsOver).toBe(0);
      expect(hot.summary.utilisation).toBeGreaterThanOrEqual(0.95);
    },
  );
});
