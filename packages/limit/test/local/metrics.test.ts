import { describe, expect, it } from "vitest";
import {
  type LocalLimiterMetrics,
  ManualClock,
  MultiRateLimiter,
  RateLimiter,
  RateLimiterPolicy,
  WindowedRateLimiter,
  WindowPolicy,
} from "../../src/index.js";

function recorder() {
  const events: string[] = [];
  const metrics: LocalLimiterMetrics = {
    acquired: (name, cost) => events.push(`${name} acquired ${cost}`),
    throttled: (name, how) => events.push(`${name} throttled ${how}`),
    waitTime: (name, ms) => events.push(`${name} waited ${ms}`),
    tierThrottled: (name, tier) => events.push(`${name} tier ${tier}`),
  };
  return { events, metrics };
}

describe("metrics hooks", () => {
  it("bucket: acquired with cost, rejected tries, one waited per acquire, and its wait time", async () => {
    const clock = new ManualClock(0);
    const { events, metrics } = recorder();
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(10).withMaxTokens(2), {
      clock,
      metrics,
      name: "api",
    });
    rl.tryAcquireN(2);
    rl.tryAcquireN(0);
    rl.tryAcquire();
    const p = rl.acquireN(2);
    await clock.advanceAsync(300);
    await p;
    expect(events).toEqual([
      "api acquired 2",
      "api acquired 0",
      "api throttled rejected",
      "api throttled waited",
      "api waited 200",
      "api acquired 2",
    ]);
  });

  it("window: uses the default name and reports reservations", () => {
    const { events, metrics } = recorder();
    const w = new WindowedRateLimiter(new WindowPolicy(1, 1000), { clock: new ManualClock(0), metrics });
    w.tryReserveN(1);
    w.tryReserveN(1);
    expect(events).toEqual(["windowed-rate-limiter acquired 1", "windowed-rate-limiter throttled rejected"]);
  });

  it("multi: per-tier throttling on every refusal; raw meter calls are not counted by the meter", async () => {
    const clock = new ManualClock(0);
    const inner = recorder();
    const outer = recorder();
    const w = new WindowedRateLimiter(new WindowPolicy(1, 100), { clock, metrics: inner.metrics });
    const m = new MultiRateLimiter({ clock, metrics: outer.metrics, name: "m" }).withTier("w", w, 1);
    m.tryAcquire();
    m.tryAcquire();
    const p = m.acquire();
    await clock.advanceAsync(100);
    await p;
    expect(outer.events).toEqual([
      "m acquired 1",
      "m tier w",
      "m throttled rejected",
      "m tier w",
      "m throttled waited",
      "m waited 100",
      "m acquired 1",
    ]);
    expect(inner.events).toEqual([]);
  });
});
