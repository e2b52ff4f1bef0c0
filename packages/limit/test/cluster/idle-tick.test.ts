// With nothing scheduled and no round in flight, the background tick sleeps (its wakeups are an idle
// limiter's CPU); heartbeats keep their period, and the first key that becomes due brings tickMs back.

import { describe, expect, it } from "vitest";
import type { Timer } from "../../src/clock/clock.js";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

/** A ManualClock that counts the timers armed for exactly `ms`. */
class CountingClock extends ManualClock {
  /** When each timer of exactly 20 ms (tickMs) was armed. */
  ticksArmed: number[] = [];
  /** When every timer is due, as armed. */
  dueTimes: number[] = [];
  override setTimer(ms: number, fn: () => void): Timer {
    if (ms === 20) this.ticksArmed.push(this.monoMs());
    this.dueTimes.push(this.monoMs() + ms);
    return super.setTimer(ms, fn);
  }
  count(): number {
    return this.ticksArmed.length;
  }
}

class HeartbeatCounter implements Store {
  heartbeats = 0;
  constructor(private readonly inner: Store) {}
  round(request: RoundRequest): Promise<RoundReply> {
    if (request.heartbeat) this.heartbeats++;
    return this.inner.round(request);
  }
}

const POLICY = { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 } as const;

async function idleLimiter(): Promise<{ clock: CountingClock; store: HeartbeatCounter; limiter: Limiter }> {
  const clock = new CountingClock();
  const store = new HeartbeatCounter(new MemoryStore(clock));
  const limiter = new Limiter({ service: "idle", podId: "p" }, store, clock);
  limiter.setPolicy("k", POLICY);
  const starting = limiter.start();
  await clock.advanceAsync(5);
  await starting;
  const first = limiter.check("k");
  await clock.advanceAsync(5);
  expect((await first).kind).toBe("allow");
  await clock.advanceAsync(10_000); // its credit lapses and its admit is pushed: the key goes dormant
  return { clock, store, limiter };
}

describe("the background tick of an idle limiter", () => {
  it("sleeps while nothing is scheduled, and heartbeats stay one a second", async () => {
    const { clock, store, limiter } = await idleLimiter();
    const ticks = clock.count();
    const heartbeats = store.heartbeats;
    await clock.advanceAsync(5_000);
    // at tickMs (20 ms) 5 s would arm 250 ticks
    expect(clock.count() - ticks).toBeLessThan(25);
    expect(store.heartbeats - heartbeats).toBeGreaterThanOrEqual(5);
    expect(store.heartbeats - heartbeats).toBeLessThanOrEqual(6);
    await limiter.shutdown();
  });

  it("comes back to tickMs as soon as a request makes a key due", async () => {
    const { clock, limiter } = await idleLimiter();
    await clock.advanceAsync(430); // between heartbeats: the tick sleeps
    const t0 = clock.monoMs();
    const check = limiter.check("k");
    await clock.advanceAsync(5);
    expect((await check).kind).toBe("allow");
    for (let i = 0; i < 10; i++) await clock.advanceAsync(10);
    // not at the sleeping tick's next wakeup (up to 250 ms away): within the request's own millisecond
    expect(clock.ticksArmed.find((t) => t >= t0)).toBe(t0);
    expect(clock.ticksArmed.filter((t) => t >= t0).length).toBeGreaterThanOrEqual(5);
    await limiter.shutdown();
  });

  it("wakes about once a second in all, and the boundary timer comes back with the first key due", async () => {
    const { clock, store, limiter } = await idleLimiter();
    const armed = clock.dueTimes.length;
    const heartbeats = store.heartbeats;
    await clock.advanceAsync(5_000);
    // a second: the tick at the heartbeat, its round's timeout, one tickMs tick while that round is out
    // (with a 250 ms idle tick and the boundary timer each second: 7 a second)
    expect(clock.dueTimes.length - armed).toBeLessThanOrEqual(16);
    expect(store.heartbeats - heartbeats).toBeGreaterThanOrEqual(5);
    await clock.advanceAsync(430);
    const t0 = clock.monoMs();
    const from = clock.dueTimes.length;
    const check = limiter.check("k");
    await clock.advanceAsync(5);
    expect((await check).kind).toBe("allow");
    // a timer due 2 ms before the next whole second (the boundary snapshot) is armed again
    const boundary = Math.ceil((t0 + 2) / 1000) * 1000 - 2;
    expect(clock.dueTimes.slice(from)).toContain(boundary);
    await limiter.shutdown();
  });
});
