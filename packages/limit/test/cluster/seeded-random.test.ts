// The seeded generator simulations replay.

import { describe, expect, it } from "vitest";
import { SeededRandom } from "../../src/cluster/prng.js";

describe("SeededRandom", () => {
  it("replays the same sequence and has the right Poisson mean", () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    for (let i = 0; i < 10; i++) expect(a.next()).toBe(b.next());
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += a.poisson(0.4);
    expect(sum / 20_000).toBeGreaterThan(0.37);
    expect(sum / 20_000).toBeLessThan(0.43);
  });
});
