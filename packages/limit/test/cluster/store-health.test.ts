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
    // a slower sample that agrees with it (its store read late in the round) leaves it
    h.recordReply(2000, 2100, 1000 + 2050 + 50);
    expect(h.offset).toBe(1000);
  });

  it("a round held by a paused store moves the offset only as far as it proves", () => {
    const h = new StoreHealth(0, 0);
    h.recordReply(0, 2, 1001); // store clock = local + 1000
    // sent at 100, the store paused until 2100 and read its clock then: its midpoint says +2000
    h.recordReply(100, 2101, 1000 + 2100);
    expect(h.offset).toBe(1000);
    // a sample that disagrees (the store's clock stepped 300 ms): the nearest offset it allows
    h.recordReply(3000, 3010, 1300 + 3005);
    expect(h.offset).toBe(1295);
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
