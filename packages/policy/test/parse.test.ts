// Parsing rules, warnings, and the strict whole-record schema.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_CONFIG,
  MAX_FALLBACKS,
  PolicySchema,
  parsePolicy,
  RateLimitsSchema,
  RetryConfigSchema,
} from "../src/index.js";

const rl = (block: unknown) => parsePolicy({ rate_limits: block });
const rc = (block: unknown) => parsePolicy({ retry_config: block });

describe("rate_limits", () => {
  it("an explicit null on a defaulted field drops the block", () => {
    for (const key of [
      "algorithm",
      "enabled",
      "cache_ttl_ms",
      "redis_timeout_ms",
      "local_allowance",
      "sync_interval_ms",
    ]) {
      const { policy, warnings } = rl({ requests_per_minute: 5, [key]: null });
      expect(policy.rateLimits, key).toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^rate_limits ignored: ${key}: invalid type: null, expected `));
    }
  });

  it("null on a window limit or burst_size is absent", () => {
    const { policy, warnings } = rl({
      requests_per_second: null,
      requests_per_minute: null,
      requests_per_hour: 3,
      burst_size: null,
    });
    expect(warnings).toEqual([]);
    expect(policy.rateLimits).toMatchObject({ requestsPerHour: 3 });
    expect(policy.rateLimits).not.toHaveProperty("requestsPerSecond");
    expect(policy.rateLimits).not.toHaveProperty("burstSize");
  });

  it("integer fields reject fractions, negatives, out-of-range values and strings", () => {
    const bad: [string, unknown][] = [
      ["requests_per_second", 1.5],
      ["requests_per_second", -1],
      ["requests_per_second", 4_294_967_296],
      ["requests_per_second", "10"],
      ["burst_size", 0.5],
      ["cache_ttl_ms", -1],
      ["cache_ttl_ms", 2 ** 64],
      ["sync_interval_ms", 100.5],
      ["redis_timeout_ms", true],
      ["enabled", "true"],
      ["local_allowance", "0.1"],
      ["algorithm", 1],
      ["algorithm", "TOKEN_BUCKET"],
    ];
    for (const [key, value] of bad) {
      const { policy, warnings } = rl({ [key]: value });
      expect(policy.rateLimits, `${key}=${JSON.stringify(value)}`).toBeUndefined();
      expect(warnings[0]).toMatch(/^rate_limits ignored: /);
    }
  });

  it("accepts the edges: u32 max, u64-sized knobs, -0, any float allowance", () => {
    const { policy, warnings } = rl({
      requests_per_second: 4_294_967_295,
      requests_per_minute: -0,
      cache_ttl_ms: 2 ** 63,
      local_allowance: -3.5,
    });
    expect(warnings).toEqual([]);
    expect(policy.rateLimits).toMatchObject({
      requestsPerSecond: 4_294_967_295,
      requestsPerMinute: 0,
      cacheTtlMs: 2 ** 63,
      localAllowance: -3.5,
    });
    expect(Object.is(policy.rateLimits!.requestsPerMinute, 0)).toBe(true);
  });

  it("is not clamped while parsing", () => {
    expect(
      RateLimitsSchema.parse({ sync_interval_ms: 0, cache_ttl_ms: 0, redis_timeout_ms: 0 }),
    ).toMatchObject({
      syncIntervalMs: 0,
      cacheTtlMs: 0,
      redisTimeoutMs: 0,
    });
  });

  it("a block that is not an object", () => {
    for (const v of [5, "x", true, [], [1, 2]]) {
      const { warnings } = rl(v);
      expect(warnings).toEqual([
        `rate_limits ignored: invalid type: ${JSON.stringify(v)}, expected a rate_limits object`,
      ]);
    }
  });
});

describe("max_concurrent", () => {
  it("takes a JSON integer 1..4294967295", () => {
    expect(parsePolicy({ max_concurrent: 1 }).policy.maxConcurrent).toBe(1);
    expect(parsePolicy({ max_concurrent: 4_294_967_295 }).policy.maxConcurrent).toBe(4_294_967_295);
  });

  it("warns with the value as JSON for anything else", () => {
    const cases: [unknown, string][] = [
      [0, "0"],
      [-1, "-1"],
      ["20", '"20"'],
      [20.5, "20.5"],
      [4_294_967_296, "4294967296"],
      [true, "true"],
      [[20], "[20]"],
      [{ n: 20 }, '{"n":20}'],
    ];
    for (const [v, text] of cases) {
      const { policy, warnings } = parsePolicy({ max_concurrent: v });
      expect(policy.maxConcurrent).toBeUndefined();
      expect(warnings).toEqual([`max_concurrent ignored: ${text} is not a positive integer`]);
    }
  });
});

describe("retry_config", () => {
  it("both fields required; unknown keys tolerated; no default applied while parsing", () => {
    expect(rc({ num_retries: 3, max_delay_s: 0.5, jitter: "full" }).policy.retryConfig).toEqual({
      numRetries: 3,
      maxDelayS: 0.5,
    });
    expect(rc({ num_retries: 3 }).warnings).toEqual(["retry_config ignored: max_delay_s: missing field"]);
    expect(rc({ max_delay_s: 3 }).warnings).toEqual(["retry_config ignored: num_retries: missing field"]);
    expect(rc({}).policy.retryConfig).toBeUndefined();
    expect(DEFAULT_RETRY_CONFIG).toEqual({ numRetries: 0, maxDelayS: 10 });
  });

  it("num_retries is a non-negative integer", () => {
    for (const n of [-1, 1.5, "2", null]) {
      const { policy, warnings } = rc({ num_retries: n, max_delay_s: 1 });
      expect(policy.retryConfig).toBeUndefined();
      expect(warnings[0]).toMatch(/^retry_config ignored: num_retries: /);
    }
  });

  it("max_delay_s negative or beyond a 32-bit float is out of range", () => {
    for (const d of [-0.001, -5, 1e39, Number.MAX_VALUE]) {
      expect(rc({ num_retries: 1, max_delay_s: d }).warnings).toEqual([
        "retry_config ignored: max_delay_s out of range",
      ]);
    }
    expect(rc({ num_retries: 1, max_delay_s: 3.4e38 }).policy.retryConfig?.maxDelayS).toBe(3.4e38);
    expect(rc({ num_retries: 1, max_delay_s: 0 }).policy.retryConfig?.maxDelayS).toBe(0);
    expect(rc({ num_retries: 1, max_delay_s: "5" }).warnings).toEqual([
      'retry_config ignored: max_delay_s: invalid type: "5", expected f32',
    ]);
  });

  it("RetryConfigSchema gives the same reasons", () => {
    const r = RetryConfigSchema.safeParse({ num_retries: 1, max_delay_s: -1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe("max_delay_s out of range");
  });
});

describe("fallback_models", () => {
  it("not a list", () => {
    for (const [v, text] of [
      ["a", '"a"'],
      [{ a: 1 }, '{"a":1}'],
      [3, "3"],
      [false, "false"],
    ] as const) {
      expect(parsePolicy({ fallback_models: v }).warnings).toEqual([
        `fallback_models ignored: ${text} is not a list`,
      ]);
    }
  });

  it("skips non-strings and empty strings with a warning each, keeps order and duplicates", () => {
    const { policy, warnings } = parsePolicy({ fallback_models: ["a", "", null, "a", ["b"], 1.5, "c"] });
    expect(policy.fallbackModels).toEqual(["a", "a", "c"]);
    expect(warnings).toEqual([
      'fallback_models entry ignored: ""',
      "fallback_models entry ignored: null",
      'fallback_models entry ignored: ["b"]',
      "fallback_models entry ignored: 1.5",
    ]);
  });

  it("stops at the 6th valid entry, after the bad ones before it; bad ones after are not seen", () => {
    const { policy, warnings } = parsePolicy({ fallback_models: ["1", 2, "3", "4", "5", "6", "7", "8", 9] });
    expect(policy.fallbackModels).toEqual(["1", "3", "4", "5", "6"]);
    expect(warnings).toEqual(["fallback_models entry ignored: 2", "fallback_models truncated to 5 entries"]);
    expect(MAX_FALLBACKS).toBe(5);
    expect(parsePolicy({ fallback_models: ["1", "2", "3", "4", "5"] }).warnings).toEqual([]);
  });
});

describe("the record", () => {
  it("a non-object gives an empty policy without warnings", () => {
    for (const v of [null, undefined, 0, "text", true, [], [{ max_concurrent: 5 }]]) {
      expect(parsePolicy(v)).toEqual({ policy: { fallbackModels: [] }, warnings: [] });
    }
  });

  it("missing keys and nulls are skipped silently; other keys ignored", () => {
    expect(
      parsePolicy({
        rate_limits: null,
        max_concurrent: null,
        retry_config: null,
        fallback_models: null,
        x: 1,
      }),
    ).toEqual({ policy: { fallbackModels: [] }, warnings: [] });
  });

  it("reads own keys only", () => {
    const record = Object.create({ max_concurrent: 5 });
    expect(parsePolicy(record).policy).toEqual({ fallbackModels: [] });
    const parsed = JSON.parse('{"__proto__": {"max_concurrent": 3}, "max_concurrent": 4}');
    expect(parsePolicy(parsed).policy.maxConcurrent).toBe(4);
  });

  it("each bad block gets its own warning, in key order rate_limits, max_concurrent, retry_config, fallback_models", () => {
    const { policy, warnings } = parsePolicy({
      fallback_models: "x",
      retry_config: 1,
      max_concurrent: -5,
      rate_limits: "y",
    });
    expect(policy).toEqual({ fallbackModels: [] });
    expect(warnings.map((w) => w.split(" ")[0])).toEqual([
      "rate_limits",
      "max_concurrent",
      "retry_config",
      "fallback_models",
    ]);
  });
});

describe("PolicySchema (strict)", () => {
  it("parses a good record to the same policy as the lenient parser", () => {
    const record = {
      vendor: "v",
      rate_limits: { requests_per_minute: 60 },
      max_concurrent: 4,
      retry_config: { num_retries: 1, max_delay_s: 2 },
      fallback_models: ["b"],
    };
    expect(PolicySchema.parse(record)).toEqual(parsePolicy(record).policy);
    expect(PolicySchema.parse({})).toEqual({ fallbackModels: [] });
  });

  it("fails the whole record on any bad block, naming it", () => {
    const r = PolicySchema.safeParse({ max_concurrent: 4, fallback_models: ["1", "2", "3", "4", "5", "6"] });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join("."))).toEqual(["fallback_models"]);
    expect(PolicySchema.safeParse({ fallback_models: [""] }).success).toBe(false);
    expect(PolicySchema.safeParse({ max_concurrent: 0 }).success).toBe(false);
    expect(PolicySchema.safeParse({ rate_limits: { algorithm: "leaky_bucket" } }).success).toBe(false);
    expect(PolicySchema.safeParse([]).success).toBe(false);
  });
});
