import { MemoryStore, type RoundRequest, type Store } from "@resil/limit";
import { describe, expect, it } from "vitest";
import { runParity, seededRandom } from "../src/index.js";

describe("runParity", () => {
  it("finds no mismatch between two reference stores", async () => {
    const report = await runParity({
      oracle: new MemoryStore(),
      subject: new MemoryStore(),
      seed: 7,
      cases: 6,
    });
    expect(report.rounds).toBe(6 * 80);
    expect(report.mismatches).toEqual([]);
  });

  it("reports a store that grants one unit too many", async () => {
    const inner = new MemoryStore();
    const skewed: Store = {
      async round(req: RoundRequest) {
        const reply = await inner.round(req);
        for (const r of reply.rates) if (r.granted > 0) r.granted++;
        return reply;
      },
    };
    const report = await runParity({ oracle: new MemoryStore(), subject: skewed, seed: 7, cases: 12 });
    expect(report.mismatches.length).toBeGreaterThan(0);
    expect(report.mismatches[0]!.field).toBe("rates[0].granted");
  });

  it("replays the same sequence from the same seed", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});
