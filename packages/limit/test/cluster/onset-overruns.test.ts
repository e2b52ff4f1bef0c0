// Decisions without a reply as the store starts failing (manual clock): each replica's overruns come
// out of its own share of what its view left, with what it holds or admitted unseen counted first.
// Views of a busy key are of different ages (a replica with credit does not sync): before, a replica
// whose view was from the window's start took its credit plus a quarter of the whole window again.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { replicasOn } from "./store-probe.js";

const FIXED_100 = { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 } as const;

/** 4 replicas at 5x (a check every 2 ms, in turn); the store fails `failAt` ms into second 1. */
async function admittedPerSecond(latencyMs: number, failAt: number): Promise<number[]> {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const replicas = await replicasOn(store, clock, 4, FIXED_100);
  store.setLatency(latencyMs);
  clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000);
  const first = clock.unixMs() / 1000;
  const admitted = [0, 0, 0];
  const count = (kind: string) => {
    if (kind !== "deny") admitted[Math.floor(clock.unixMs() / 1000) - first]!++;
  };
  for (let ms = 0; ms < 2500; ms++) {
    if (ms === 1000 + failAt) store.setFailing(true);
    if (ms % 2 === 0) {
      const l = replicas[(ms / 2) % 4]!;
      const d = l.tryCheck("k");
      if (d !== undefined) count(d.kind);
      else void l.check("k").then((x) => count(x.kind));
    }
    await clock.advanceAsync(1);
  }
  store.setFailing(false);
  store.setLatency(0);
  const closing = Promise.all(replicas.map((l) => l.shutdown()));
  await clock.advanceAsync(100);
  await closing;
  return admitted;
}

describe("overruns as the store starts failing", () => {
  it.each([2, 20])(
    "store latency %i ms, failing 0-250 ms into a second: at most L + N - 1",
    async (latency) => {
      for (let failAt = 0; failAt <= 250; failAt += 50) {
        const seconds = await admittedPerSecond(latency, failAt);
        // before: 104 (2 ms, failing at +150), 107 (20 ms, at +100); now at most 100
        for (const n of seconds)
          expect(n, `failing at +${failAt} ms: ${seconds.join(", ")}`).toBeLessThanOrEqual(103);
      }
    },
    60_000,
  );
});
