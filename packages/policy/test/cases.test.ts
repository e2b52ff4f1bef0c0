// Every documented parsing case.
import { describe, expect, it } from "vitest";
import {
  hasLimits,
  isActive,
  isEmpty,
  isLocalOnly,
  merge,
  mostRestrictiveLimit,
  parsePolicy,
  RATE_LIMIT_DEFAULTS,
  RateLimitsSchema,
  rateLimitConfig,
  sanitized,
  windows,
} from "../src/index.js";

const EXAMPLE = {
  vendor: "elevenlabs",
  rate_limits: {
    algorithm: "token_bucket",
    requests_per_second: 10,
    requests_per_minute: null,
    requests_per_hour: 5000,
    burst_size: 15,
    enabled: true,
    cache_ttl_ms: 500,
    local_allowance: 0.8,
    sync_interval_ms: 100,
  },
  max_concurrent: 20,
  retry_config: { num_retries: 2, max_delay_s: 5.0 },
  fallback_models: ["model-b", "model-c"],
};

describe("documented parsing cases", () => {
  it("1. defaults: sliding_window, enabled, cache_ttl 200, redis_timeout 10, local_allowance 0.1, sync 100", () => {
    const fromWire = RateLimitsSchema.parse({});
    const inCode = rateLimitConfig();
    for (const c of [fromWire, inCode, RATE_LIMIT_DEFAULTS]) {
      expect(c).toEqual({
        algorithm: "sliding_window",
        enabled: true,
        cacheTtlMs: 200,
        redisTimeoutMs: 10,
        localAllowance: 0.1,
        syncIntervalMs: 100,
      });
    }
  });

  it("2. the example rate_limits gives 2 windows (10, 1000, 15) and (5000, 3600000, 15)", () => {
    const c = RateLimitsSchema.parse(EXAMPLE.rate_limits);
    expect(c.algorithm).toBe("token_bucket");
    expect(windows(c)).toEqual([
      { limit: 10, windowMs: 1000, burst: 15 },
      { limit: 5000, windowMs: 3_600_000, burst: 15 },
    ]);
    expect(c).toEqual({
      algorithm: "token_bucket",
      requestsPerSecond: 10,
      requestsPerHour: 5000,
      burstSize: 15,
      enabled: true,
      cacheTtlMs: 500,
      redisTimeoutMs: 10,
      localAllowance: 0.8,
      syncIntervalMs: 100,
    });
  });

  it("3. unknown keys are tolerated; rpm 60 is read", () => {
    const c = RateLimitsSchema.parse({
      requests_per_minute: 60,
      redis_connection_pool_size: 8,
      local_cache_size: 1000,
    });
    expect(c.requestsPerMinute).toBe(60);
    expect(c).not.toHaveProperty("redis_connection_pool_size");
  });

  it("4. burst is ignored by fixed and sliding windows", () => {
    for (const algorithm of ["fixed_window", "sliding_window"] as const) {
      const c = rateLimitConfig({ algorithm, requestsPerMinute: 60, burstSize: 500 });
      expect(windows(c)[0]!.burst, algorithm).toBe(60);
    }
  });

  it("5. rps 0 + rpm 10: one window, active; disabled: inactive but hasLimits", () => {
    const c = rateLimitConfig({ requestsPerSecond: 0, requestsPerMinute: 10 });
    expect(windows(c)).toHaveLength(1);
    expect(isActive(c)).toBe(true);
    const off = { ...c, enabled: false };
    expect(isActive(off)).toBe(false);
    expect(hasLimits(off)).toBe(true);
  });

  it("6. rps 10, rpm 300, rph 1000: the most restrictive is 1000 per hour", () => {
    const c = rateLimitConfig({ requestsPerSecond: 10, requestsPerMinute: 300, requestsPerHour: 1000 });
    expect(mostRestrictiveLimit(c)).toEqual({ limit: 1000, windowMs: 3_600_000 });
  });

  it("7. merge: base rpm 60 cache_ttl 300, override rps 2 cache_ttl 500 -> rpm 60, rps 2, cache_ttl 500", () => {
    const m = merge(
      rateLimitConfig({ requestsPerMinute: 60, cacheTtlMs: 300 }),
      rateLimitConfig({ requestsPerSecond: 2, cacheTtlMs: 500 }),
    );
    expect(m.requestsPerMinute).toBe(60);
    expect(m.requestsPerSecond).toBe(2);
    expect(m.cacheTtlMs).toBe(500);
  });

  it("8. sanitized: NaN allowance, sync 0, timeout 0 -> 0.1, 10, 1", () => {
    const c = sanitized(
      rateLimitConfig({ localAllowance: Number.NaN, syncIntervalMs: 0, redisTimeoutMs: 0 }),
    );
    expect(c.localAllowance).toBe(0.1);
    expect(c.syncIntervalMs).toBe(10);
    expect(c.redisTimeoutMs).toBe(1);
  });

  it("9. lenient: a bad rate_limits and a bad fallback entry are dropped, the rest kept, 2 warnings", () => {
    const { policy, warnings } = parsePolicy({
      vendor: "elevenlabs",
      rate_limits: { algorithm: "leaky_bucket", requests_per_second: 5 },
      max_concurrent: 20,
      retry_config: { num_retries: 2, max_delay_s: 5.0 },
      fallback_models: ["a", 7, "b"],
    });
    expect(policy.rateLimits).toBeUndefined();
    expect(policy.maxConcurrent).toBe(20);
    expect(policy.retryConfig?.numRetries).toBe(2);
    expect(policy.fallbackModels).toEqual(["a", "b"]);
    expect(warnings).toHaveLength(2);
    expect(warnings).toEqual([
      'rate_limits ignored: algorithm: unknown variant "leaky_bucket", expected one of "fixed_window", "sliding_window", "token_bucket"',
      "fallback_models entry ignored: 7",
    ]);
  });

  it("10. max_concurrent 0 and six fallbacks -> no max_concurrent, 5 fallbacks, 2 warnings", () => {
    const { policy, warnings } = parsePolicy({
      max_concurrent: 0,
      fallback_models: ["1", "2", "3", "4", "5", "6"],
    });
    expect(policy.maxConcurrent).toBeUndefined();
    expect(policy.fallbackModels).toEqual(["1", "2", "3", "4", "5"]);
    expect(warnings).toEqual([
      "max_concurrent ignored: 0 is not a positive integer",
      "fallback_models truncated to 5 entries",
    ]);
  });

  it("11. a record with no policy keys -> empty policy, no warnings", () => {
    const { policy, warnings } = parsePolicy({ vendor: "deepgram" });
    expect(policy).toEqual({ fallbackModels: [] });
    expect(isEmpty(policy)).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe("the documented example record", () => {
  it("parses whole, camelCase, without warnings", () => {
    expect(parsePolicy(EXAMPLE)).toEqual({
      policy: {
        rateLimits: RateLimitsSchema.parse(EXAMPLE.rate_limits),
        maxConcurrent: 20,
        retryConfig: { numRetries: 2, maxDelayS: 5 },
        fallbackModels: ["model-b", "model-c"],
      },
      warnings: [],
    });
    expect(isLocalOnly(parsePolicy(EXAMPLE).policy.rateLimits!)).toBe(false);
  });
});
