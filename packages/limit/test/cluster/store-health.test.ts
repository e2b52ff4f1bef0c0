// StoreHealth: the clock offset rests on the quickest round trip; the wait budget follows the round trip.

import { describe, expect, it } from "vitest";
import { RATE_DEFAULTS } from "../../src/cluster/config.js";
import { StoreHealth } from "../../src/cluster/store-health.js";

describe("StoreHealth", () => {
  it("a quicker round trip replaces an offset measured on a slow one", () => {
    const h = new StoreHealth(0, 0);
    // store clock = local + 1000; a 300 ms first round whose store read came late (skewed by 100 ms)
    h.recordReply(0, 300, 1000 + 250);
    expect(h.offset).toBe(1100);
    h.recordReply(1000, 1002, 1000 + 1001);
    expect(h.offset).toBe(1000);
    // a slower sample only moves it 20 % of the way
    h.recordReply(2000, 2100, 1000 + 2050 + 50);
    expect(h.offset).toBeCloseTo(1010, 6);
  });

  it("waits max(redisTimeoutMs, min(cacheTtlMs, 2 x the round trip))", () => {
    const h = new StoreHealth(0, 0);
    expect(h.waitBudgetMs(RATE_DEFAULTS)).toBe(10);
    h.recordReply(0, 40, 20);
    expect(h.waitBudgetMs(RATE_DEFAULTS)).toBe(80);
    for (let i = 1; i < 40; i++) h.recordReply(i * 1000, i * 1000 + 500, i * 1000 + 250);
    expect(h.waitBudgetMs(RATE_DEFAULTS)).toBe(200);
  });
});
