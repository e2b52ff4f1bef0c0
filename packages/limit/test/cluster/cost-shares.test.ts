// Fair shares between costs for waiters (docs/protocol.md#s3-9): a Pacer serves the largest waiter
// first, holds one-unit waiters back past their share of the offered units while larger ones are
// admitted, and asks for those within it as `SHARE_HEAD`, which may take the store's pooled units.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { CostShares, placeByCost, SHARE_HALF_LIFE_MS, SHARE_HOLD_MS } from "../../src/cluster/cost-shares.js";
import type { Decision } from "../../src/cluster/decision.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { type PacedLimiter, Pacer } from "../../src/cluster/pacer.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { leavesPool, SHARE_HEAD } from "../../src/store/pool.js";
import { rate, T0 } from "../store/rate-request.js";

describe("CostShares", () => {
  it("holds a one-unit request back past its share of the offered units while larger ones are admitted", () => {
    const s = new CostShares(0);
    s.offer(1, 0);
    s.offer(1, 0);
    s.offer(50, 0);
    // nothing larger admitted yet: nothing is held back
    s.admit(1, 0);
    expect(s.over(1, 0)).toBe(false);
    s.admit(50, 1);
    // offered 2 of 52 units at cost 1; admitted 1 of 51: one more would be 2 of 52, its share exactly
    expect(s.over(1, 2)).toBe(false);
    s.admit(1, 2);
    expect(s.over(1, 3)).toBe(true);
    expect(s.over(50, 3)).toBe(false); // larger requests are never held back
    // no larger request admitted for SHARE_HOLD_MS: a larger cost that never fits starves nobody
    expect(s.over(1, 1 + SHARE_HOLD_MS + 1)).toBe(false);
    expect(s.idle(1 + SHARE_HOLD_MS + 1)).toBe(true);
  });

  it("follows the recent mix: counts halve every SHARE_HALF_LIFE_MS", () => {
    const s = new CostShares(0);
    for (let i = 0; i < 10; i++) s.offer(1, 0);
    s.offer(50, 0);
    s.admit(50, 0);
    for (let i = 0; i < 10; i++) s.admit(1, 0);
    expect(s.over(1, 0)).toBe(true); // 10 of 60 offered; one more: 11 of 61 admitted
    s.offer(1, SHARE_HALF_LIFE_MS); // halved: 5 + 1 of 31 offered, 5 of 30 admitted
    s.admit(50, SHARE_HALF_LIFE_MS);
    expect(s.over(1, SHARE_HALF_LIFE_MS)).toBe(false); // 6 of 81 admitted with one more: within 6 of 31
  });

  it("places a waiter behind every one at least as large, never ahead of a head being decided", () => {
    const q = [{ cost: 1 }, { cost: 50 }, { cost: 50 }, { cost: 1 }];
    expect(placeByCost(q, 50, 0)).toBe(3);
    expect(placeByCost(q, 1, 0)).toBe(4);
    expect(placeByCost([{ cost: 1 }, { cost: 1 }], 50, 0)).toBe(0);
    expect(placeByCost([{ cost: 1 }, { cost: 1 }], 50, 1)).toBe(1);
  });
});

describe("Pacer with mixed costs", () => {
  /** A limiter that admits nothing until `open`, then everything; it records the checks it got. */
  function gate() {
    const calls: string[] = [];
    let open = false;
    const deny: Decision = { kind: "deny", reason: "limited", retryAfterMs: 1 } as unknown as Decision;
    const allow: Decision = { kind: "allow" } as unknown as Decision;
    const limiter: PacedLimiter = {
      tryCheck: () => undefined,
      check: async (_s, cost = 1) => {
        calls.push(`check ${cost}`);
        return open ? allow : deny;
      },
      checkShare: async (_s, cost = 1) => {
        calls.push(`share ${cost}`);
        return open ? allow : deny;
      },
    };
    return { calls, limiter, open: () => (open = true) };
  }

  it("serves the largest waiter first, FIFO within a cost", async () => {
    const clock = new ManualClock();
    const g = gate();
    const pacer = new Pacer(g.limiter, { pollMs: 5 }, clock);
    const order: string[] = [];
    const waits = [
      pacer.wait("api", { cost: 1 }).then(() => order.push("1a")),
      pacer.wait("api", { cost: 1 }).then(() => order.push("1b")),
      pacer.wait("api", { cost: 50 }).then(() => order.push("50")),
    ];
    await clock.advanceAsync(1);
    g.open();
    await clock.advanceAsync(10);
    await Promise.all(waits);
    // 1a was being decided when 50 came: it is not displaced; 50 goes before 1b
    expect(order).toEqual(["1a", "50", "1b"]);
  });

  it("asks for a one-unit waiter within its share with checkShare once larger ones are admitted", async () => {
    const clock = new ManualClock();
    const g = gate();
    g.open();
    const pacer = new Pacer(g.limiter, {}, clock);
    await pacer.wait("api", { cost: 1 });
    await pacer.wait("api", { cost: 50 });
    await pacer.wait("api", { cost: 1 });
    expect(g.calls).toEqual(["check 1", "check 50", "share 1"]);
  });
});

describe("SHARE_HEAD at the store", () => {
  it("does not leave the pool: a one-unit ask within its share may take pooled units", () => {
    expect(leavesPool(SHARE_HEAD, 50)).toBe(false);
    expect(leavesPool(0, 50)).toBe(true);
    const store = new MemoryStore();
    const bucket = (over: Parameters<typeof rate>[0]) =>
      rate({ alg: 2, windows: [{ limit: 100, windowMs: 1000, burst: 100 }], ...over });
    // 70 used: a's cost-50 request is short and keeps a pool of 50 for the next one
    store.rate(bucket({ pod: "a", hits: 70, need: 50, head: 50 }), T0);
    expect(store.rate(bucket({ pod: "b", need: 1 }), T0 + 1)).toMatchObject({ direct: 0 });
    expect(store.rate(bucket({ pod: "c", need: 1, head: SHARE_HEAD }), T0 + 2)).toMatchObject({ direct: 1 });
  });

  it("is sent by a Limiter for a one-unit request a Pacer asks with checkShare", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const heads: number[] = [];
    const rateOf = store.rate.bind(store);
    store.rate = (req, now) => {
      heads.push(req.head ?? 0);
      return rateOf(req, now);
    };
    const limiter = new Limiter({ podId: "p" }, store, clock);
    limiter.setPolicy("api", { algorithm: "sliding_window", requestsPerSecond: 10 });
    await limiter.syncNow(true);
    for (let i = 0; i < 10; i++) limiter.tryCheck("api");
    heads.length = 0;
    const d = limiter.checkShare("api");
    await clock.advanceAsync(1000);
    await d;
    expect(heads[0]).toBe(SHARE_HEAD);
  });
});
