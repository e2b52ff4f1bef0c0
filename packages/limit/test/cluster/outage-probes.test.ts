// While the store fails, rounds are paced: one probe per interval (backing off), and waiting work rides on it.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { LimiterEvent } from "../../src/cluster/events.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const SLIDING_50 = { algorithm: "sliding_window", requestsPerSecond: 50, localAllowance: 0.8 } as const;
const OUTAGE_MS = 2400;
const STEP_MS = 5;

/** Offers `perStep` checks on each of `keys` keys every STEP_MS for `ms`; returns how many were admitted. */
async function offer(
  l: Limiter,
  clock: ManualClock,
  ms: number,
  keys: number,
  perStep: number,
): Promise<number> {
  let admitted = 0;
  const pending: Promise<void>[] = [];
  for (let t = 0; t < ms; t += STEP_MS) {
    for (let k = 0; k < keys; k++)
      for (let i = 0; i < perStep; i++)
        pending.push(
          l.check(`k${k}`).then((d) => {
            if (d.kind === "allow") admitted++;
          }),
        );
    await clock.advanceAsync(STEP_MS);
  }
  await clock.advanceAsync(50);
  await Promise.all(pending);
  return admitted;
}

async function started(
  store: MemoryStore,
  clock: ManualClock,
  keys: number,
  onEvent?: (e: LimiterEvent) => void,
): Promise<Limiter> {
  const l = new Limiter({ service: "t", podId: "p", onEvent }, store, clock);
  for (let k = 0; k < keys; k++) l.setPolicy(`k${k}`, SLIDING_50);
  await l.start();
  await offer(l, clock, 1000, keys, 1);
  return l;
}

describe("a failing store is probed, not hammered", () => {
  it("an outage of 2.4 s under load costs a few probe rounds, not one per waiting check", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = await started(store, clock, 3);
    store.setFailing(true);
    const before = store.rounds;
    const admitted = await offer(l, clock, OUTAGE_MS, 3, 2);
    const rounds = store.rounds - before;
    // the backoff (2 × tickMs doubling, at most heartbeatMs / 2) allows about 10 in 2.4 s
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(rounds).toBeLessThanOrEqual(12);
    // fail-static still decides (N = 1 here: the registry answered before the outage), at most L per
    // key and window over the 4 windows the outage touches
    expect(l.outcomeCount("allowDegraded")).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(3 * 50 * 4);
    await l.shutdown();
  });

  it("a probe that succeeds ends the outage within the longest probe interval", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const recovered: number[] = [];
    const l = await started(store, clock, 1, (e) => {
      if (e.type === "storeRecovered") recovered.push(e.at);
    });
    store.setFailing(true);
    await offer(l, clock, OUTAGE_MS, 1, 1);
    expect(recovered).toEqual([]);
    store.setFailing(false);
    const back = clock.monoMs();
    await offer(l, clock, 600, 1, 1);
    expect(recovered).toHaveLength(1);
    // heartbeatMs / 2 (the longest probe interval) plus a tick
    expect(recovered[0]! - back).toBeLessThanOrEqual(500 + 20);
    await l.shutdown();
  });

  it("checks waiting while the store fails ride on the probe in flight", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = await started(store, clock, 1);
    while (l.tryAdmit("k0") === true);
    store.setFailing(true);
    store.setLatency(40); // each failed round takes 40 ms
    const before = store.rounds;
    const waits = Array.from({ length: 20 }, () => l.check("k0"));
    await clock.advanceAsync(60);
    await Promise.all(waits);
    expect(store.rounds - before).toBe(1);
    store.setLatency(0);
    await l.shutdown();
  });
});
