import { describe, expect, it } from "vitest";
import { LocalPolicyError, NEVER, RateLimiter, RateLimiterPolicy } from "../../src/index.js";

function build(policy: RateLimiterPolicy): RateLimiter {
  return new RateLimiter(policy);
}

describe("RateLimiterPolicy", () => {
  it("new(tokens, period) sets maxTokens and tokensPerPeriod, burst 0; perSecond is a 1 s period", () => {
    const p = new RateLimiterPolicy(7, 2000);
    expect([p.maxTokens, p.tokensPerPeriod, p.refillPeriodMs, p.burst]).toEqual([7, 7, 2000, 0]);
    expect(p.refillPerMs).toBeCloseTo(7 / 2000);
    const s = RateLimiterPolicy.perSecond(10);
    expect([s.maxTokens, s.tokensPerPeriod, s.refillPeriodMs]).toEqual([10, 10, 1000]);
  });

  it("withMaxTokens replaces the ceiling only; withBurst replaces (does not add to) burst", () => {
    const base = RateLimiterPolicy.perSecond(10);
    const p = base.withMaxTokens(5).withBurst(3).withBurst(2);
    expect([p.maxTokens, p.tokensPerPeriod, p.burst, p.capacity]).toEqual([5, 10, 2, 7]);
    expect(base.maxTokens).toBe(10); // immutable
    expect(p).toBeInstanceOf(RateLimiterPolicy);
    expect(Object.isFrozen(p)).toBe(true);
  });

  it("case 8: withMaxTokens(0) throws at limiter construction, and a burst does not rescue it", () => {
    expect(() => build(RateLimiterPolicy.perSecond(10).withMaxTokens(0))).toThrow(/maxTokens must be >= 1/);
    expect(() => build(RateLimiterPolicy.perSecond(10).withMaxTokens(0).withBurst(5))).toThrow(
      LocalPolicyError,
    );
  });

  it("case 9: new(0, 1 s).withMaxTokens(1) throws about the refill rate", () => {
    expect(() => build(new RateLimiterPolicy(0, 1000).withMaxTokens(1))).toThrow(/refill rate must be > 0/);
  });

  it("case 10: a zero period throws about the refill rate", () => {
    expect(() => build(new RateLimiterPolicy(5, 0))).toThrow(/refill rate must be > 0/);
  });

  it("accepts an enormous period (tiny rate) and a NEVER period (never refills)", () => {
    expect(() => build(new RateLimiterPolicy(5, Number.MAX_VALUE))).not.toThrow();
    expect(() => build(new RateLimiterPolicy(1, NEVER))).not.toThrow();
  });

  const bad = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

  it.each(bad)("maxTokens = %s is rejected naming maxTokens", (v) => {
    const err = catchErr(() => build(RateLimiterPolicy.perSecond(10).withMaxTokens(v)));
    expect(err).toBeInstanceOf(LocalPolicyError);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as LocalPolicyError).field).toBe("maxTokens");
    expect((err as Error).message).toMatch(/maxTokens/);
  });

  it.each(bad)("tokensPerPeriod = %s is rejected naming tokensPerPeriod", (v) => {
    const err = catchErr(() => build(new RateLimiterPolicy(v, 1000).withMaxTokens(5)));
    expect((err as LocalPolicyError).field).toBe("tokensPerPeriod");
    expect((err as Error).message).toMatch(/tokensPerPeriod/);
  });

  it.each([0, -1, Number.NaN, Number.NEGATIVE_INFINITY])("refillPeriodMs = %s is rejected naming it", (v) => {
    const err = catchErr(() => build(new RateLimiterPolicy(5, v)));
    expect((err as LocalPolicyError).field).toBe("refillPeriodMs");
    expect((err as Error).message).toMatch(/refillPeriodMs/);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("burst = %s is rejected naming burst", (v) => {
    const err = catchErr(() => build(RateLimiterPolicy.perSecond(5).withBurst(v)));
    expect((err as LocalPolicyError).field).toBe("burst");
    expect((err as Error).message).toMatch(/burst/);
  });

  it("rejects a capacity beyond a safe integer", () => {
    const p = RateLimiterPolicy.perSecond(5).withMaxTokens(Number.MAX_SAFE_INTEGER).withBurst(10);
    expect(() => build(p)).toThrow(/burst/);
  });
});

function catchErr(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}
