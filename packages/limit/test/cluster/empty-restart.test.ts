// A store restarted empty at once, mid-window (a Redis killed and back before any round fails): no
// outage for the replicas to act on, only windows that forgot what they had counted. Each replica
// sends the windows its last reply showed (`seen`), and the store raises its own to them.
// Manual clock, 3 replicas, 100 a second, 2.5x offered load.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";
import { offerEvery4Ms } from "./store-probe.js";

const LIMIT = 100;

/** Forwards to a store that can be replaced by an empty one between two rounds. */
class Restartable implements Store {
  constructor(public inner: MemoryStore) {}
  round(request: RoundRequest): Promise<RoundReply> {
    return this.inner.round(request);
  }
}

/** Requests of these costs in turn, one every 12 ms (about 2.5x a limit of 100 units a second). */
function offerCosts(
  replicas: readonly Limiter[],
  ms: number,
  costs: readonly number[],
  count: (kind: string, units: number) => void,
): void {
  if (ms % 12 !== 0) return;
  const n = ms / 12;
  const l = replicas[n % replicas.length]!;
  const cost = costs[n % costs.length]!;
  const d = l.tryCheck("k", cost);
  if (d !== undefined) count(d.kind, cost);
  else void l.check("k", cost).then((x) => count(x.kind, cost));
}

/**
 * Admitted units per store second of a 4 s run; the store restarts empty `restartAt` ms into second 1.
 * One unit a request every 4 ms, or requests of `costs` in turn.
 */
async function restartRun(
  policy: RateLimitConfig,
  restartAt: number,
  send: boolean,
  costs?: readonly number[],
): Promise<number[]> {
  const clock = new ManualClock();
  const store = new Restartable(new MemoryStore(clock));
  const replicas = Array.from(
    { length: 3 },
    (_, i) => new Limiter({ service: "t", podId: `p${i}` }, store, clock),
  );
  const starts = replicas.map((l) => {
    l.setPolicy("k", policy);
    return l.start();
  });
  await clock.advanceAsync(1100);
  await Promise.all(starts);
  if (!send) {
    // the replicas as they were before: nothing seen is sent
    const inner = { round: (r: RoundRequest) => store.inner.round(r) };
    store.round = (r) => inner.round({ ...r, rates: r.rates.map(({ seen: _, ...rest }) => rest) });
  }
  clock.set(Math.ceil(clock.unixMs() / 1000) * 1000);
  const t0 = clock.unixMs();
  const seconds = [0, 0, 0, 0];
  const count = (kind: string, units = 1) => {
    if (kind !== "deny") seconds[Math.floor((clock.unixMs() - t0) / 1000)]! += units;
  };
  for (let ms = 0; ms < 4000; ms++) {
    if (ms === 1000 + restartAt) store.inner = new MemoryStore(clock);
    if (costs === undefined) offerEvery4Ms(replicas, ms, count);
    else offerCosts(replicas, ms, costs, count);
    await clock.advanceAsync(1);
  }
  const closing = Promise.all(replicas.map((l) => l.shutdown()));
  await clock.advanceAsync(3000);
  await closing;
  return seconds;
}

describe("a store restarted empty mid-window", () => {
  const fixed = { algorithm: "fixed_window", requestsPerSecond: LIMIT, localAllowance: 0.8 } as const;
  const sliding = { algorithm: "sliding_window", requestsPerSecond: LIMIT, localAllowance: 0.8 } as const;

  // Without the windows seen: 129, 165 and 197 (a fixed window fills by about 400 ms at this load).
  // What is left: what the others counted or held in credit since the first replica back last saw
  // the store (their leases are lost too): 109, 113, 101.
  it("fixed window: the restart second admits at most the limit and what the others held", async () => {
    for (const at of [200, 300, 400]) {
      const seconds = await restartRun(fixed, at, true);
      const label = `restart at ${at} ms: ${seconds.join(" ")}`;
      for (const n of seconds) expect(n, label).toBeLessThanOrEqual(LIMIT + 15);
      expect(seconds[3], label).toBe(LIMIT);
    }
  });

  // Without: 109 to 148 in the restart second.
  it("sliding window: the restart second admits at most the limit (+1)", async () => {
    for (const at of [100, 300, 500, 700, 900]) {
      const seconds = await restartRun(sliding, at, true);
      const label = `restart at ${at} ms: ${seconds.join(" ")}`;
      for (const n of seconds) expect(n, label).toBeLessThanOrEqual(LIMIT + 1);
      expect(seconds[3], label).toBeGreaterThanOrEqual(LIMIT - 3);
    }
  });

  // Requests of 1 to 5 units: the windows seen carry units, not requests. Without: 146 and 187
  // in the restart second; with: 100 and 100.
  it("fixed window, mixed costs: the restart second admits at most the limit and what the others held", async () => {
    const costs = [1, 3, 5, 2, 4];
    for (const at of [200, 400]) {
      const seconds = await restartRun(fixed, at, true, costs);
      const lost = await restartRun(fixed, at, false, costs);
      const label = `restart at ${at} ms: ${seconds.join(" ")} (without seen ${lost.join(" ")})`;
      for (const n of seconds) expect(n, label).toBeLessThanOrEqual(LIMIT + 15);
      expect(lost[1], label).toBeGreaterThan(LIMIT + 30);
    }
  });

  it("without the windows seen, the same restart admits almost twice the limit (what this guards)", async () => {
    const seconds = await restartRun(fixed, 400, false);
    expect(seconds[1]).toBeGreaterThan(LIMIT + 50);
  });

  it("token bucket: a bucket drained before the restart is not full after it", async () => {
    const bucket = {
      algorithm: "token_bucket",
      requestsPerSecond: LIMIT,
      burstSize: LIMIT,
      localAllowance: 0.8,
    } as const;
    const kept = await restartRun(bucket, 500, true);
    const lost = await restartRun(bucket, 500, false);
    // drained in second 0 (250 offered a second), a bucket refills 100 a second; a full one adds its burst
    const label = `kept ${kept.join(" ")}, lost ${lost.join(" ")}`;
    expect(kept[1], label).toBeLessThanOrEqual(LIMIT + 3);
    expect(lost[1], label).toBeGreaterThan(LIMIT + 30);
  });
});
