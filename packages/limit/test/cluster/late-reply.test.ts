// A reply that lands after its credit's trust ended (a blocked event loop, a loaded host): the units
// the store admitted directly for the waiting check are counted, not leased, and still serve it.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

/** Answers at once, or (while `held`) only when the test lets the reply through. */
class GatedStore implements Store {
  held = false;
  private release: (() => void) | undefined;
  constructor(private readonly inner: Store) {}
  async round(request: RoundRequest): Promise<RoundReply> {
    const reply = await this.inner.round(request);
    if (this.held) await new Promise<void>((r) => (this.release = r));
    return reply;
  }
  letThrough(): void {
    this.release?.();
    this.release = undefined;
  }
  get waiting(): boolean {
    return this.release !== undefined;
  }
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

describe("a reply later than its credit's trust", () => {
  for (const algorithm of ["fixed_window", "sliding_window", "token_bucket"] as const) {
    it(`${algorithm}: the waiting check is allowed by the units admitted for it, not denied`, async () => {
      const clock = new ManualClock();
      const store = new GatedStore(new MemoryStore(clock));
      // credit far below its limit is leased for its 1 s window (at most a minute) and trusted for
      // 750 ms of it, from the time its round was sent
      const limiter = new Limiter({ podId: "late", leaseTtlMs: 100 }, store, clock);
      limiter.setPolicy("k", {
        algorithm,
        requestsPerSecond: 1_000_000,
        redisTimeoutMs: 10,
        cacheTtlMs: 10,
        localAllowance: 0.8,
      });
      expect((await limiter.check("k")).kind).toBe("allow");
      await turns();
      for (let i = 0; i < 5; i++) {
        await clock.advanceAsync(800); // the credit lapses: the next check waits for a sync
        store.held = true;
        const pending = limiter.check("k");
        await turns();
        expect(store.waiting).toBe(true);
        clock.stall(770); // the loop was blocked past the wait's deadline and the trust; the reply is in
        store.held = false;
        store.letThrough();
        await turns();
        clock.advance(0); // the late timers
        expect((await pending).kind).toBe("allow");
      }
      expect(limiter.outcomeCount("denySync")).toBe(0);
      expect(limiter.outcomeCount("allowOverrun")).toBe(0);
      expect(limiter.outcomeCount("allowSync")).toBe(5);
      await limiter.shutdown();
    });
  }
});
