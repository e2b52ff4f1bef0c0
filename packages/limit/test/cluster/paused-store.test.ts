// A store paused like a SIGSTOPped Redis: rounds sent meanwhile run only when it resumes, reading its
// clock then, so their replies arrive with a store time from the end of a long round trip. Sampled at the
// round trip's midpoint, that time shifted each replica's clock offset by up to half the pause, and with it
// every window boundary: the second after the pause admitted 54-56 (docs/protocol.md#s4).
// Manual clock, 4 replicas, fixed 50/s, 5x offered load.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";
import { offerEvery4Ms } from "./store-probe.js";

const LIMIT = 50;
const REPLICAS = 4;

/** Rounds sent while paused wait for `resume()`, then run in the order sent. */
class Pausable implements Store {
  private waiting: Array<() => void> | undefined;
  constructor(private readonly inner: MemoryStore) {}
  pause(): void {
    this.waiting ??= [];
  }
  resume(): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const go of waiting) go();
  }
  async round(request: RoundRequest): Promise<RoundReply> {
    const waiting = this.waiting;
    if (waiting) await new Promise<void>((r) => waiting.push(r));
    return this.inner.round(request);
  }
}

interface PausedRun {
  /** Admitted per second of the run. */
  seconds: number[];
  /** Each replica's largest clock offset during the run, ms (the clocks agree: 0 is right). */
  worstOffset: number[];
}

/** Replicas started `staggerMs` apart; the store paused from `pauseAt` to `resumeAt` ms into a 5.8 s run. */
async function pausedRun(
  pauseAt: number,
  resumeAt: number,
  staggerMs: number,
  latencyMs: number,
): Promise<PausedRun> {
  const clock = new ManualClock();
  const inner = new MemoryStore(clock);
  inner.setLatency(latencyMs);
  const store = new Pausable(inner);
  const replicas = Array.from(
    { length: REPLICAS },
    (_, i) => new Limiter({ service: "t", podId: `p${i}` }, store, clock),
  );
  const starts: Promise<void>[] = [];
  for (const l of replicas) {
    l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: LIMIT, localAllowance: 0.8 });
    starts.push(l.start());
    await clock.advanceAsync(staggerMs + 5);
  }
  await clock.advanceAsync(1100);
  await Promise.all(starts);
  clock.set(Math.ceil(clock.unixMs() / 1000) * 1000 + 100);
  const t0 = clock.unixMs() - 100;
  const seconds = [0, 0, 0, 0, 0, 0];
  const worstOffset = [0, 0, 0, 0];
  const count = (kind: string) => {
    if (kind !== "deny") seconds[Math.floor((clock.unixMs() - t0) / 1000)]!++;
  };
  for (let ms = 0; ms < 5800; ms++) {
    if (ms === pauseAt) store.pause();
    if (ms === resumeAt) store.resume();
    offerEvery4Ms(replicas, ms, count);
    await clock.advanceAsync(1);
    replicas.forEach((l, i) => {
      const offset = l.storeTime() - clock.unixMs();
      if (Math.abs(offset) > Math.abs(worstOffset[i]!)) worstOffset[i] = offset;
    });
  }
  const closing = Promise.all(replicas.map((l) => l.shutdown()));
  await clock.advanceAsync(3000);
  await closing;
  return { seconds, worstOffset };
}

describe("a store paused for 1.5 s (SIGSTOP), its rounds run when it resumes", () => {
  it("the clock offset stays put and every second holds L + N - 1", async () => {
    // before: offsets up to 90-162 ms; seconds 54, 56, 55, 54 in the second the store resumed
    const cases: Array<[staggerMs: number, latencyMs: number]> = [
      [0, 1],
      [37, 1],
      [37, 4],
      [111, 1],
    ];
    for (const [staggerMs, latencyMs] of cases) {
      const { seconds, worstOffset } = await pausedRun(1300, 2800, staggerMs, latencyMs);
      const label = `stagger ${staggerMs}, latency ${latencyMs}: ${seconds.join(" ")}`;
      for (const n of seconds) expect(n, label).toBeLessThanOrEqual(LIMIT + REPLICAS - 1);
      for (const o of worstOffset) expect(Math.abs(o), label).toBeLessThanOrEqual(latencyMs);
      expect(seconds[5], label).toBe(LIMIT);
    }
  });
});
