// The default clock reads the time once per event-loop turn. A reply read in the turn its round was
// sent in (a fast local Redis) was timed at 0 ms from that one reading, taken before the store read
// its clock: the offset to store time came out late by up to a turn, with no error allowed for it,
// and the replica's windows turned early. On a real Redis, a fail-static replica so spent its share of
// the next second 2 ms before the second began (56 admitted in one second, 46 in the next).

import { describe, expect, it } from "vitest";
import { CoarseClock } from "../../src/clock/coarse-clock.js";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

/** A store 1 ms away each way: it reads its clock 1 ms after the send, the reply lands 1 ms later. */
class OneMsAway implements Store {
  constructor(
    private readonly inner: MemoryStore,
    private readonly clock: ManualClock,
  ) {}
  async round(request: RoundRequest): Promise<RoundReply> {
    this.clock.advance(1);
    const reply = await this.inner.round(request);
    this.clock.advance(1);
    return reply;
  }
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe("round trips timed under a per-turn clock", () => {
  it("the offset to store time rests on the round trip as it happened, not on one cached reading", async () => {
    const base = new ManualClock();
    const clock = new CoarseClock(base);
    const l = new Limiter({ service: "t", podId: "p" }, new OneMsAway(new MemoryStore(base), base), clock);
    l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 50 });
    await l.start();
    for (let i = 0; i < 5; i++) {
      await l.check("k");
      await nextTurn();
    }
    await nextTurn();
    // the store's clock is the base clock: store time is base time, exactly
    expect(l.storeTime() - base.monoMs()).toBe(0);
    await l.shutdown();
  });
});
