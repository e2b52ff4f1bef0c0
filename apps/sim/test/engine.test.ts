import { describe, expect, it } from "vitest";
import { simulate } from "../src/engine.js";
import { parseScenario } from "../src/scenario.js";
import { idealBackend } from "./helpers/ideal-backend.js";

describe("simulate (with a perfectly coordinated stand-in)", () => {
  it("offers about load x limit and admits exactly the limit per window", async () => {
    const s = parseScenario({ replicas: 3, duration: 5, load: 4, limits: [{ limit: 50, window: "second" }] });
    const run = await simulate(s, idealBackend());
    expect(run.windowCount).toBe(5);
    for (let w = 0; w < 5; w++) {
      expect(run.admitted[w]).toBe(50);
      expect(run.offered[w]).toBeGreaterThan(150);
      expect(run.offered[w]).toBeLessThan(250);
      expect(run.offered[w]).toBeCloseTo(run.admitted[w]! + run.denied[w]!, 6);
    }
    // Per-replica admitted adds up to the window's admitted.
    let perReplica = 0;
    for (let p = 0; p < 3; p++) perReplica += run.admittedBy[2 * run.stride + p]!;
    expect(perReplica).toBe(50);
  });

  it("is deterministic for a seed and differs across seeds", async () => {
    const s = parseScenario({ duration: 3, seed: 7 });
    const a = await simulate(s, idealBackend());
    const b = await simulate(s, idealBackend());
    const c = await simulate({ ...s, seed: 8 }, idealBackend());
    expect(Array.from(a.offered)).toEqual(Array.from(b.offered));
    expect(Array.from(a.admittedBy)).toEqual(Array.from(b.admittedBy));
    expect(Array.from(a.offered)).not.toEqual(Array.from(c.offered));
  });

  it("sends the skewed share to replica 0", async () => {
    const s = parseScenario({ replicas: 4, duration: 4, load: 0.5, traffic: { shape: "skewed" } });
    const run = await simulate(s, idealBackend());
    let total = 0;
    let first = 0;
    for (let w = 0; w < run.windowCount; w++)
      for (let p = 0; p < 4; p++) {
        const x = run.offeredBy[w * run.stride + p]!;
        total += x;
        if (p === 0) first += x;
      }
    expect(first / total).toBeGreaterThan(0.7);
    expect(first / total).toBeLessThan(0.9);
  });

  it("moves traffic off a crashed replica and onto a joined one", async () => {
    const s = parseScenario({
      replicas: 2,
      duration: 4,
      load: 1,
      faults: [
        { type: "crash", at: 1, replica: 1 },
        { type: "join", at: 2 },
      ],
    });
    const run = await simulate(s, idealBackend());
    expect(run.pods).toEqual(["pod-0", "pod-1", "pod-2"]);
    const offered = (w: number, p: number) => run.offeredBy[w * run.stride + p]!;
    expect(offered(0, 1)).toBeGreaterThan(0);
    expect(offered(1, 1)).toBe(0); // dead from 1 s
    expect(offered(1, 2)).toBe(0); // not yet joined
    expect(offered(3, 2)).toBeGreaterThan(0);
    expect(run.crashes).toEqual([
      { replica: 1, atMs: 1000, leakedSlots: 0, slotsReturnedAfterMs: undefined },
    ]);
    expect(run.lifetimes[1]).toEqual({ fromMs: 0, toMs: 1000 });
  });

  it("fails store rounds during an outage and counts the calls", async () => {
    const s = parseScenario({ replicas: 2, duration: 4, faults: [{ type: "outage", from: 1, to: 3 }] });
    const run = await simulate(s, idealBackend());
    // The stand-in beats at 1, 2 and 3 s per replica (warm-up at 0 not counted): 2 of 3 in the outage.
    expect(run.storeCalls).toBe(6);
    expect(run.storeFailures).toBe(4);
  });

  it("charges weighted costs in units", async () => {
    const s = parseScenario({
      replicas: 1,
      duration: 2,
      load: 0.5,
      limits: [{ limit: 1000 }],
      costs: [
        { cost: 1, weight: 1 },
        { cost: 10, weight: 1 },
      ],
    });
    const run = await simulate(s, idealBackend());
    // Mean cost 5.5: about 0.5 x 1000 units per second in about 91 requests per second.
    expect(run.offered[0]! + run.offered[1]!).toBeGreaterThan(800);
    expect(run.offered[0]! + run.offered[1]!).toBeLessThan(1200);
    expect(run.requests).toBeLessThan(250);
  });
});
