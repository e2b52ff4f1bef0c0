// Fair shares for mixed costs (docs/protocol.md#s3-9): a large request waiting on a sync sends its
// cost, the store keeps that many units free for it, and it is never handed a part of itself.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RateReply, RateRequest, Store } from "../../src/store/types.js";

function spied(clock: ManualClock) {
  const store = new MemoryStore(clock);
  const asks: RateRequest[] = [];
  const replies: RateReply[] = [];
  const spy: Store = {
    async round(r) {
      for (const rate of r.rates) asks.push(structuredClone(rate));
      const reply = await store.round(r);
      replies.push(...reply.rates);
      return reply;
    },
  };
  return { asks, replies, spy };
}

async function replicas(clock: ManualClock, spy: Store): Promise<Limiter[]> {
  const out = ["a", "b"].map((podId) => new Limiter({ podId }, spy, clock));
  for (const l of out) {
    l.setPolicy("k", {
      algorithm: "token_bucket",
      requestsPerSecond: 100,
      localAllowance: 0.1,
      cacheTtlMs: 50,
    });
  }
  for (let pass = 0; pass < 2; pass++) for (const l of out) await l.syncNow(true);
  return out;
}

describe("fair shares for mixed costs", () => {
  it("a waiting request of cost 50 asks with head 50; cost-1 requests never send a head", async () => {
    const clock = new ManualClock();
    const { asks, spy } = spied(clock);
    const [a] = await replicas(clock, spy);
    for (let i = 0; i < 5; i++) await a!.check("k");
    expect(asks.every((r) => (r.head ?? 0) < 2)).toBe(true);
    await a!.check("k", 50);
    expect(asks.some((r) => r.head === 50 && r.need >= 50)).toBe(true);
    await a!.syncNow(true);
    expect(asks.at(-1)!.head ?? 0).toBe(0); // nobody waits any more
  });

  it("a large request short of units takes none of them; the next one as large gets its units kept", async () => {
    const clock = new ManualClock();
    const { asks, replies, spy } = spied(clock);
    const [a, b] = await replicas(clock, spy);
    // b spends the bucket down to about 30 units
    let spent = 0;
    while (spent < 70 && (await b!.check("k")).kind === "allow") spent++;
    expect((await a!.check("k", 50)).kind).toBe("deny");
    // before, the 30 or so free units went to it direct: charged, too few for it, left to cost-1 requests
    const ask = asks.findIndex((r) => r.head === 50);
    expect(replies[ask]!.avail).toBeGreaterThan(0);
    expect(replies[ask]!.direct).toBe(0);
    // cost-1 requests on b leave the pool: the bucket refills for the large request meanwhile
    clock.advance(300);
    let small = 0;
    for (let i = 0; i < 20; i++) if ((await b!.check("k")).kind === "allow") small++;
    clock.advance(300);
    expect((await a!.check("k", 50)).kind).toBe("allow");
    expect(small).toBeLessThan(20);
  });
});
