import { describe, expect, it } from "vitest";
import {
  ManualClock,
  RateLimiter,
  RateLimiterPolicy,
  WindowedRateLimiter,
  WindowPolicy,
} from "../../src/index.js";

describe("Permit", () => {
  it("releasing (or disposing) a permit gives nothing back: units return with time, not release", () => {
    const clock = new ManualClock(0);
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(10).withMaxTokens(2), { clock });
    const w = new WindowedRateLimiter(new WindowPolicy(2, 1000), { clock });
    const p1 = rl.tryAcquire()!;
    p1.release();
    p1[Symbol.dispose]();
    const p2 = w.tryAcquire()!;
    p2.release();
    expect(rl.tokensAvailable()).toBe(1);
    expect(w.used()).toBe(1);
    expect(p1.kind).toBe("permit");
  });

  it("is one shared frozen object, so the hot path allocates nothing", () => {
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(10), { clock: new ManualClock(0) });
    const a = rl.tryAcquire();
    const b = rl.tryAcquireN(3);
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
  });
});
