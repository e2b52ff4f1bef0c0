// Never over the limit beyond the scenarios of docs/protocol.md#s6: more replicas, longer windows.

import { describe, expect, it } from "vitest";
import type { RateAlgorithm } from "../../src/cluster/config.js";
import { middleWindows, Simulation } from "../../src/cluster/simulation.js";

const COUNTERS: RateAlgorithm[] = ["fixed_window", "sliding_window"];

// For every pair of admits, the count between them fits the token bucket's envelope.
function expectEnvelope(times: number[], burst: number, periodMs: number): void {
  for (let i = 0; i < times.length; i++) {
    for (let j = i; j < times.length; j++) {
      expect(j - i + 1).toBeLessThanOrEqual(burst + (times[j]! - times[i]!) / periodMs + 1);
    }
  }
}

describe("never over, N 16", () => {
  // Keys known at start are synced by start()'s forced round (warmKeys here): no unreserved credit.
  for (const algorithm of COUNTERS) {
    it(`${algorithm}: every 1 s window <= 40 at 1x..50x load`, async () => {
      for (const load of [1, 5, 50]) {
        const sim = await Simulation.create({
          replicas: 16,
          warmKeys: true,
          rateLimits: { algorithm, requestsPerSecond: 40 },
        });
        const r = await sim.drive({ durationMs: 4000, rate: 40 * load, seed: 1600 + load });
        for (const w of r.windows) expect(w.admitted, `load ${load}x`).toBeLessThanOrEqual(40);
        if (load > 1) for (const w of middleWindows(r.windows)) expect(w.admitted).toBeGreaterThanOrEqual(30);
      }
    });

    it(`${algorithm}: a key first used at runtime is over by at most its cold shares, then never`, async () => {
      const sim = await Simulation.create({ replicas: 16, rateLimits: { algorithm, requestsPerSecond: 40 } });
      const r = await sim.drive({ durationMs: 4000, rate: 200, seed: 1605 });
      // cold share per replica: min(floor(0.8 x 40 / 16), ceil(40 x 100 / 1000)) = 2
      expect(r.windows[0]!.admitted).toBeLessThanOrEqual(40 + 15 * 2);
      for (const w of r.windows.slice(1)) expect(w.admitted).toBeLessThanOrEqual(40);
    });
  }

  it("token bucket: the envelope holds with 16 replicas", async () => {
    const sim = await Simulation.create({
      replicas: 16,
      rateLimits: { algorithm: "token_bucket", requestsPerSecond: 20, burstSize: 5 },
    });
    const r = await sim.drive({ durationMs: 4000, rate: 400, seed: 1616 });
    expect(r.admitted).toBeGreaterThan(50);
    expectEnvelope(r.admitTimes, 5, 50);
  });
});

describe("never over, per-minute and per-hour limits", () => {
  for (const algorithm of COUNTERS) {
    for (const replicas of [4, 16]) {
      it(`${algorithm}, N ${replicas}: 40/min holds in every minute at 10x load`, async () => {
        const sim = await Simulation.create({ replicas, rateLimits: { algorithm, requestsPerMinute: 40 } });
        sim.alignTo(60_000);
        const r = await sim.drive({
          durationMs: 180_000,
          rate: 400 / 60,
          seed: 60 + replicas,
          windowMs: 60_000,
          stepMs: 10,
        });
        expect(r.windows).toHaveLength(3);
        for (const w of r.windows) {
          expect(w.admitted).toBeLessThanOrEqual(40);
          expect(w.admitted).toBeGreaterThanOrEqual(36);
        }
      });
    }

    it(`${algorithm}, N 8: 100/h holds in every hour at 20x load`, async () => {
      const sim = await Simulation.create({ replicas: 8, rateLimits: { algorithm, requestsPerHour: 100 } });
      sim.alignTo(3_600_000);
      const r = await sim.drive({
        durationMs: 3 * 3_600_000,
        rate: 2000 / 3600,
        seed: 3600,
        windowMs: 3_600_000,
        stepMs: 500,
      });
      expect(r.windows).toHaveLength(3);
      for (const w of r.windows) {
        expect(w.admitted).toBeLessThanOrEqual(100);
        expect(w.admitted).toBeGreaterThanOrEqual(90);
      }
    });
  }

  it("second and minute together: both limits hold", async () => {
    const sim = await Simulation.create({
      replicas: 4,
      rateLimits: { algorithm: "sliding_window", requestsPerSecond: 10, requestsPerMinute: 120 },
    });
    sim.alignTo(60_000);
    const r = await sim.drive({ durationMs: 120_000, rate: 100, seed: 61, stepMs: 5 });
    const perMinute = [0, 0];
    for (const w of r.windows) {
      expect(w.admitted).toBeLessThanOrEqual(10);
      perMinute[Math.floor((w.start - r.windows[0]!.start) / 60_000)]! += w.admitted;
    }
    for (const m of perMinute) expect(m).toBeLessThanOrEqual(120);
  });

  it("token bucket per minute: the envelope holds with 4 replicas", async () => {
    const sim = await Simulation.create({
      replicas: 4,
      rateLimits: { algorithm: "token_bucket", requestsPerMinute: 60, burstSize: 10 },
    });
    const r = await sim.drive({ durationMs: 120_000, rate: 10, seed: 62, stepMs: 5 });
    expect(r.admitted).toBeGreaterThan(100);
    expectEnvelope(r.admitTimes, 10, 1000);
  });
});
