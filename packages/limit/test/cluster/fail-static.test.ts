// Fail-static while the store is down.

import { describe, expect, it } from "vitest";
import { Simulation } from "../../src/cluster/simulation.js";

describe("fail-static with credit in hand", () => {
  // Credit taken as a window opens, then the store fails before it is spent: fail-static's local
  // share must not come on top of it in a later window.
  it("credit from before an outage is not spent beside the local share in a later window", async () => {
    const sim = await Simulation.create({
      replicas: 4,
      rateLimits: { algorithm: "fixed_window", requestsPerSecond: 100 },
    });
    sim.alignTo(1000);
    await sim.drive({ durationMs: 1000, rate: 1000, seed: 80 }); // every replica used the key, out of credit
    await sim.drive({ durationMs: 400, rate: 0, seed: 81 }); // the next window opens: credit, no traffic
    const held = sim.limiters.filter((l) => l.tryCheck(sim.subject) !== undefined).length;
    expect(held).toBeGreaterThan(0); // (tryCheck spent one unit on each that had credit)
    sim.store.setFailing(true);
    await sim.drive({ durationMs: 1600, rate: 0, seed: 82 }); // the failure is seen, the view goes stale
    const r = await sim.drive({ durationMs: 2000, rate: 1000, seed: 83 });
    for (const w of r.windows) expect(w.admitted).toBeLessThanOrEqual(104);
    expect(sim.limiters[0]!.outcomeCount("allowDegraded")).toBeGreaterThan(0);
  });
});
