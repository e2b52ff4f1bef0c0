// Credit held when the store stalls lapses with the window it was taken in (docs/protocol.md#s4).

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { replicasOn } from "./store-probe.js";

const FIXED_100 = { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 } as const;

function toSecond(clock: ManualClock, plusMs: number): void {
  clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000 + plusMs);
}

/** Offers `n` requests round-robin without waiting; counts the admitted ones. */
function offerNow(replicas: Limiter[], n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) if (replicas[i % replicas.length]!.tryCheck("k")?.kind === "allow") admitted++;
  return admitted;
}

describe("credit during a stall", () => {
  for (const decideDuringStall of [true, false]) {
    it(`credit taken before a stall lapses with its window (decisions during the stall: ${decideDuringStall})`, async () => {
      const clock = new ManualClock();
      const store = new MemoryStore(clock);
      const replicas = await replicasOn(store, clock, 4, FIXED_100);
      for (const l of replicas) await l.start();
      toSecond(clock, 700);
      // busy keys: the store grants each replica credit for the rest of the window
      offerNow(replicas, 20);
      await clock.advanceAsync(30);
      offerNow(replicas, 8);
      await clock.advanceAsync(30);
      const held = replicas.map((l) => l.tryAdmit("k"));
      expect(held).toEqual([true, true, true, true]); // each replica holds unused credit
      store.setLatency(5000); // rounds unanswered past cacheTtlMs, within roundTimeoutMs: a stall
      for (const l of replicas) void l.syncNow(true);
      await clock.advanceAsync(150);
      if (decideDuringStall) offerNow(replicas, 4);
      await clock.advanceAsync(1000 - (clock.unixMs() % 1000) + 20);
      // the next window, store still stalled: no admit from the old credit, at most N × ⌈L / N⌉
      const fromCredit = replicas.map((l) => l.outcomeCount("allowLocal"));
      const next = offerNow(replicas, 400);
      expect(replicas.map((l) => l.outcomeCount("allowLocal"))).toEqual(fromCredit);
      expect(next).toBeLessThanOrEqual(100);
      expect(next).toBeGreaterThan(50);
      await clock.advanceAsync(5000);
      store.setLatency(0);
      for (const l of replicas) await l.shutdown();
    });
  }
});
