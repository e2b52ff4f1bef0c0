import { SeededRandom } from "@resil/limit/testing";
import { describe, expect, it } from "vitest";
import { FaultTimeline } from "../src/faults.js";
import { parseScenario } from "../src/scenario.js";
import { Traffic } from "../src/traffic.js";

describe("traffic shapes", () => {
  it("keeps the mean rate at load x limit for every shape", () => {
    for (const shape of ["steady", "bursty", "diurnal"] as const) {
      const t = new Traffic(
        parseScenario({ load: 2, limits: [{ limit: 100 }], duration: 20, traffic: { shape } }),
      );
      let sum = 0;
      for (let ms = 0; ms < 20_000; ms++) sum += t.arrivalsPerMs(ms);
      expect(sum / 20).toBeCloseTo(200, 0);
    }
  });

  it("bursty is on for the duty cycle only; diurnal peaks mid-period", () => {
    const b = new Traffic(parseScenario({ traffic: { shape: "bursty", period: 4, duty: 0.25 } }));
    expect(b.multiplier(500)).toBe(4);
    expect(b.multiplier(1500)).toBe(0);
    const d = new Traffic(parseScenario({ duration: 10, traffic: { shape: "diurnal", trough: 0.1 } }));
    expect(d.multiplier(0)).toBeCloseTo(0.1);
    expect(d.multiplier(5000)).toBeCloseTo(1.9);
  });

  it("splits evenly, or puts the skewed share on the first replica", () => {
    expect(new Traffic(parseScenario({})).shares(4)).toEqual([0.25, 0.25, 0.25, 0.25]);
    const skewed = new Traffic(parseScenario({ traffic: { shape: "skewed" } })).shares(3);
    expect(skewed[0]).toBeCloseTo(0.8);
    expect(skewed[1]).toBeCloseTo(0.1);
    expect(new Traffic(parseScenario({ traffic: { skew: 0.5 } })).shares(1)).toEqual([1]);
  });

  it("divides by the mean cost, so load stays in units", () => {
    const t = new Traffic(parseScenario({ load: 1, limits: [{ limit: 1000 }], costs: [{ cost: 4 }] }));
    expect(t.meanArrivalsPerMs).toBeCloseTo(0.25);
  });
});

describe("fault timeline", () => {
  it("answers outages and slow periods by time, and orders replica events", () => {
    const f = new FaultTimeline(
      parseScenario({
        duration: 100,
        faults: [
          { type: "join", at: 50 },
          { type: "outage", from: 10, to: 20 },
          { type: "slow", from: 30, to: 40, latencyMs: 25 },
          { type: "crash", at: 5, replica: 1 },
        ],
      }).faults,
    );
    expect(f.storeDown(9_999)).toBe(false);
    expect(f.storeDown(10_000)).toBe(true);
    expect(f.storeDown(20_000)).toBe(false);
    expect(f.extraLatency(35_000)).toBe(25);
    expect(f.extraLatency(45_000)).toBe(0);
    expect(f.events.map((e) => e.kind)).toEqual(["crash", "join"]);
  });
});

describe("SeededRandom (from @resil/limit)", () => {
  it("repeats for a seed and has the right Poisson mean (small and large)", () => {
    const a = new SeededRandom(3);
    const b = new SeededRandom(3);
    expect([a.next(), a.next()]).toEqual([b.next(), b.next()]);
    for (const lambda of [0.3, 6, 120]) {
      const r = new SeededRandom(11);
      let sum = 0;
      for (let i = 0; i < 20_000; i++) sum += r.poisson(lambda);
      expect(sum / 20_000).toBeCloseTo(lambda, lambda > 10 ? 0 : 1);
    }
    expect(new SeededRandom(1).poisson(0)).toBe(0);
  });
});
