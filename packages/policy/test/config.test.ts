// Config helpers beyond the documented cases.
import { describe, expect, it } from "vitest";
import {
  hasLimits,
  isActive,
  isLocalOnly,
  merge,
  mostRestrictiveLimit,
  rateLimitConfig,
  sanitized,
  windows,
} from "../src/index.js";

describe("windows", () => {
  it("orders second, minute, hour; leaves out missing, null and 0", () => {
    const c = rateLimitConfig({ requestsPerHour: 7, requestsPerMinute: null, requestsPerSecond: 3 });
    expect(windows(c)).toEqual([
      { limit: 3, windowMs: 1000, burst: 3 },
      { limit: 7, windowMs: 3_600_000, burst: 7 },
    ]);
    expect(windows(rateLimitConfig({ requestsPerMinute: 0 }))).toEqual([]);
  });

  it("token bucket: burst_size only when > 0, the same for every window", () => {
    const tb = (burstSize: number | null | undefined) =>
      windows(
        rateLimitConfig({
          algorithm: "token_bucket",
          requestsPerSecond: 5,
          requestsPerMinute: 100,
          burstSize,
        }),
      );
    expect(tb(20).map((w) => w.burst)).toEqual([20, 20]);
    expect(tb(0).map((w) => w.burst)).toEqual([5, 100]);
    expect(tb(null).map((w) => w.burst)).toEqual([5, 100]);
    expect(tb(undefined).map((w) => w.burst)).toEqual([5, 100]);
  });
});

describe("hasLimits, isActive, isLocalOnly", () => {
  it("hasLimits counts a 0 limit; isActive needs a window and enabled", () => {
    expect(hasLimits(rateLimitConfig())).toBe(false);
    expect(hasLimits(rateLimitConfig({ requestsPerHour: 0 }))).toBe(true);
    expect(isActive(rateLimitConfig({ requestsPerHour: 0 }))).toBe(false);
    expect(isActive(rateLimitConfig())).toBe(false);
  });

  it("local-only from an allowance of 1.0 up", () => {
    expect(isLocalOnly(rateLimitConfig({ localAllowance: 0.99 }))).toBe(false);
    expect(isLocalOnly(rateLimitConfig({ localAllowance: 1 }))).toBe(true);
    expect(isLocalOnly(rateLimitConfig({ localAllowance: 3 }))).toBe(true);
  });
});

describe("mostRestrictiveLimit", () => {
  it("none without windows; the first wins a tie", () => {
    expect(mostRestrictiveLimit(rateLimitConfig())).toBeUndefined();
    // 1/s and 60/min are the same rate: the per-second window, listed first, wins
    expect(mostRestrictiveLimit(rateLimitConfig({ requestsPerSecond: 1, requestsPerMinute: 60 }))).toEqual({
      limit: 1,
      windowMs: 1000,
    });
    expect(mostRestrictiveLimit(rateLimitConfig({ requestsPerSecond: 2, requestsPerMinute: 60 }))).toEqual({
      limit: 60,
      windowMs: 60_000,
    });
  });
});

describe("merge", () => {
  it("takes algorithm and enabled from the override, limits override ?? base", () => {
    const base = rateLimitConfig({
      algorithm: "token_bucket",
      requestsPerSecond: 1,
      requestsPerHour: 9,
      burstSize: 4,
      enabled: false,
    });
    const m = merge(base, rateLimitConfig({ requestsPerSecond: 2, requestsPerHour: null }));
    expect(m.algorithm).toBe("sliding_window");
    expect(m.enabled).toBe(true);
    expect(m.requestsPerSecond).toBe(2);
    expect(m.requestsPerHour).toBe(9);
    expect(m.burstSize).toBe(4);
    expect(m).not.toHaveProperty("requestsPerMinute");
  });

  it("tuning from the override only when it differs from the default", () => {
    const base = rateLimitConfig({
      cacheTtlMs: 300,
      redisTimeoutMs: 30,
      syncIntervalMs: 300,
      localAllowance: 0.5,
    });
    expect(merge(base, rateLimitConfig())).toMatchObject({
      cacheTtlMs: 300,
      redisTimeoutMs: 30,
      syncIntervalMs: 300,
      localAllowance: 0.5,
    });
    const over = rateLimitConfig({
      cacheTtlMs: 201,
      redisTimeoutMs: 11,
      syncIntervalMs: 99,
      localAllowance: 1,
    });
    expect(merge(base, over)).toMatchObject({
      cacheTtlMs: 201,
      redisTimeoutMs: 11,
      syncIntervalMs: 99,
      localAllowance: 1,
    });
    // an override that sets a default value explicitly cannot be told from one that left it out
    expect(merge(base, rateLimitConfig({ cacheTtlMs: 200 })).cacheTtlMs).toBe(300);
  });
});

describe("sanitized", () => {
  it("clamps each knob into its range and leaves the rest", () => {
    const c = rateLimitConfig({
      requestsPerMinute: 60,
      localAllowance: 5,
      syncIntervalMs: 1e9,
      cacheTtlMs: 1,
      redisTimeoutMs: 99_999,
    });
    expect(sanitized(c)).toEqual({
      ...c,
      localAllowance: 5,
      syncIntervalMs: 10_000,
      cacheTtlMs: 50,
      redisTimeoutMs: 5000,
    });
    expect(sanitized(rateLimitConfig({ cacheTtlMs: 1e9 })).cacheTtlMs).toBe(60_000);
  });

  it("a non-finite or non-positive allowance becomes 0.1", () => {
    for (const a of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(sanitized(rateLimitConfig({ localAllowance: a })).localAllowance, String(a)).toBe(0.1);
    }
    expect(sanitized(rateLimitConfig({ localAllowance: 0.5 })).localAllowance).toBe(0.5);
  });

  it("does not mutate its input; a NaN knob (not possible on the wire) takes its default", () => {
    const c = rateLimitConfig({
      syncIntervalMs: Number.NaN,
      cacheTtlMs: Number.NaN,
      redisTimeoutMs: Number.NaN,
    });
    const s = sanitized(c);
    expect(s).toMatchObject({ syncIntervalMs: 100, cacheTtlMs: 200, redisTimeoutMs: 10 });
    expect(Number.isNaN(c.syncIntervalMs)).toBe(true);
  });
});
