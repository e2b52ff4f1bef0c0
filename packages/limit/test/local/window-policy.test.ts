import { describe, expect, it } from "vitest";
import { LocalPolicyError, NEVER, WindowedRateLimiter, WindowPolicy } from "../../src/index.js";

const build = (p: WindowPolicy) => new WindowedRateLimiter(p);

describe("WindowPolicy", () => {
  it("case 9: perHours and perDays set the window; the limit is kept", () => {
    expect(WindowPolicy.perHours(100, 5).windowMs).toBe(18_000_000);
    expect(WindowPolicy.perDays(100, 7).windowMs).toBe(604_800_000);
    expect(WindowPolicy.perHours(42, 5).limit).toBe(42);
    expect(Object.isFrozen(WindowPolicy.perDays(1, 1))).toBe(true);
  });

  it("case 7: limit 0 throws, checked before the window", () => {
    expect(() => build(new WindowPolicy(0, 1000))).toThrow(/limit must be >= 1/);
    expect(() => build(new WindowPolicy(0, 0))).toThrow(/limit/);
  });

  it("case 8: window 0 throws", () => {
    expect(() => build(new WindowPolicy(5, 0))).toThrow(/windowMs must be a number > 0/);
  });

  it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])("limit = %s is rejected naming limit", (v) => {
    try {
      build(new WindowPolicy(v, 1000));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LocalPolicyError);
      expect((e as LocalPolicyError).field).toBe("limit");
    }
  });

  it.each([0, -5, Number.NaN, Number.NEGATIVE_INFINITY])("windowMs = %s is rejected naming windowMs", (v) => {
    try {
      build(new WindowPolicy(5, v));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LocalPolicyError);
      expect((e as LocalPolicyError).field).toBe("windowMs");
      expect((e as Error).message).toMatch(/windowMs/);
    }
  });

  it("a negative hour count surfaces as a bad windowMs", () => {
    expect(() => build(WindowPolicy.perHours(5, -1))).toThrow(/windowMs/);
  });

  it("accepts a NEVER window (a one-off quota)", () => {
    expect(() => build(new WindowPolicy(5, NEVER))).not.toThrow();
  });
});
