import { describe, expect, it } from "vitest";
import { LocalPolicyError, NEVER, RateLimitedError } from "../../src/index.js";

describe("errors", () => {
  it("RateLimitedError names the tier and the retry-after", () => {
    const e = new RateLimitedError("b", 120);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("RateLimitedError");
    expect(e.message).toBe("rate limited by tier `b`: retry after 120 ms");
    expect([e.tier, e.retryAfterMs]).toEqual(["b", 120]);
  });

  it("RateLimitedError keeps NEVER as Infinity and says so", () => {
    const e = new RateLimitedError("big", NEVER);
    expect(e.retryAfterMs).toBe(Number.POSITIVE_INFINITY);
    expect(e.message).toBe("rate limited by tier `big`: it can never admit");
  });

  it("LocalPolicyError is a RangeError that carries the field", () => {
    const e = new LocalPolicyError("limit", "limit must be >= 1");
    expect(e).toBeInstanceOf(RangeError);
    expect(e.name).toBe("LocalPolicyError");
    expect(e.field).toBe("limit");
  });
});
