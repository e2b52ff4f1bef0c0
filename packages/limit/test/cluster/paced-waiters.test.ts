// A check that starts waiting while its key's round is in flight, when that round's reply paces the
// replica (the store has nothing for it until then), is decided at once: another round then would come
// back empty (docs/protocol.md#s2-5). Before, each such waiter asked again, one empty round per unit
// admitted at 100x the limit.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { replicasOn } from "./store-probe.js";

describe("waiters registered while a round paces the replica", () => {
  it("are denied from that reply, without a round of their own", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const [a, b] = await replicasOn(store, clock, 2, { algorithm: "sliding_window", requestsPerSecond: 4 });
    // b spends the window: a's next ask finds nothing free
    for (let i = 0; i < 4; i++) {
      const p = b!.check("k");
      await clock.advanceAsync(1);
      await p;
    }
    store.setLatency(2);
    const rounds = store.rounds;
    const first = a!.check("k");
    await clock.advanceAsync(1); // the first check's round is in flight
    const second = a!.check("k");
    await clock.advanceAsync(5);
    const decisions = await Promise.all([first, second]);
    expect(decisions.map((d) => d.kind)).toEqual(["deny", "deny"]);
    expect(store.rounds - rounds).toBe(1);
  });
});
