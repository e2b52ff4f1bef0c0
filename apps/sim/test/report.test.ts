import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { idealBackend } from "./helpers/ideal-backend.js";

describe("utilisation", () => {
  it("a saturated token bucket uses its whole rate: the burst counts once, not in every window", async () => {
    const s = parseScenario({
      replicas: 2,
      duration: 6,
      load: 20,
      algorithm: "token",
      limits: [{ limit: 100, window: "second" }],
    });
    const report = buildReport(await simulate(s, limiterBackend));
    // about 100 a second plus the first window's burst; dividing by limit + burst per window said ~53 %
    expect(report.summary.utilisation).toBeGreaterThan(0.95);
    expect(report.summary.utilisation).toBeLessThanOrEqual(1.01);
    expect(report.summary.windowsOver).toBe(0);
  });

  it("a window counts the lesser of offered and the limit", async () => {
    const s = parseScenario({ replicas: 3, duration: 5, load: 4, limits: [{ limit: 50, window: "second" }] });
    const report = buildReport(await simulate(s, idealBackend()));
    expect(report.summary.utilisation).toBe(1);
  });
});
