// Property tests (fast-check): lenient parsing never throws on any JSON value and never drops a
// valid block because a sibling is malformed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_FALLBACKS, type Policy, parsePolicy } from "../src/index.js";

const KEYS = ["rate_limits", "max_concurrent", "retry_config", "fallback_models"] as const;
const FIELD = {
  rate_limits: "rateLimits",
  max_concurrent: "maxConcurrent",
  retry_config: "retryConfig",
  fallback_models: "fallbackModels",
} as const;

const u32 = fc.integer({ min: 0, max: 4_294_967_295 });
const unknownKeys = fc.dictionary(
  fc
    .string()
    .filter(
      (k) =>
        !k.includes("_ms") &&
        !k.startsWith("requests") &&
        !["algorithm", "enabled", "burst_size", "local_allowance", "__proto__"].includes(k),
    ),
  fc.jsonValue(),
  { maxKeys: 3 },
);

const validRateLimits = fc
  .tuple(
    fc.record(
      {
        algorithm: fc.constantFrom("fixed_window", "sliding_window", "token_bucket"),
        requests_per_second: fc.option(u32),
        requests_per_minute: fc.option(u32),
        requests_per_hour: fc.option(u32),
        burst_size: fc.option(u32),
        enabled: fc.boolean(),
        cache_ttl_ms: fc.nat(),
        redis_timeout_ms: fc.nat(),
        local_allowance: fc.double({ noNaN: true, noDefaultInfinity: true }),
        sync_interval_ms: fc.nat(),
      },
      { requiredKeys: [] },
    ),
    unknownKeys,
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

const validBlock = {
  rate_limits: validRateLimits,
  max_concurrent: fc.integer({ min: 1, max: 4_294_967_295 }),
  retry_config: fc
    .tuple(
      fc.record({ num_retries: fc.nat(), max_delay_s: fc.double({ min: 0, max: 3e38, noNaN: true }) }),
      unknownKeys,
    )
    .map(([known, extra]) => ({ ...extra, ...known })),
  fallback_models: fc.array(fc.string({ minLength: 1 }), { maxLength: MAX_FALLBACKS }),
};

// Each key: absent, a valid block, or any JSON value at all (mostly malformed).
const slot = (key: (typeof KEYS)[number]) =>
  fc.oneof(
    fc.constant({ kind: "absent" as const }),
    validBlock[key].map((value) => ({ kind: "valid" as const, value: value as unknown })),
    fc.jsonValue().map((value) => ({ kind: "any" as const, value: value as unknown })),
  );

const record = fc.record({
  rate_limits: slot("rate_limits"),
  max_concurrent: slot("max_concurrent"),
  retry_config: slot("retry_config"),
  fallback_models: slot("fallback_models"),
  other: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
});

function checkShape(policy: Policy, warnings: string[]) {
  expect(Array.isArray(warnings) && warnings.every((w) => typeof w === "string")).toBe(true);
  expect(policy.fallbackModels.length).toBeLessThanOrEqual(MAX_FALLBACKS);
  expect(policy.fallbackModels.every((m) => typeof m === "string" && m.length > 0)).toBe(true);
  if (policy.maxConcurrent !== undefined) {
    expect(Number.isInteger(policy.maxConcurrent) && policy.maxConcurrent >= 1).toBe(true);
  }
  if (policy.retryConfig !== undefined) {
    expect(Number.isInteger(policy.retryConfig.numRetries) && policy.retryConfig.numRetries >= 0).toBe(true);
    expect(Number.isFinite(policy.retryConfig.maxDelayS) && policy.retryConfig.maxDelayS >= 0).toBe(true);
  }
}

describe("parsePolicy properties", () => {
  it("never throws on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const { policy, warnings } = parsePolicy(v);
        checkShape(policy, warnings);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on records whose policy keys hold any JSON value", () => {
    const anyRecord = fc.record(
      {
        rate_limits: fc.jsonValue(),
        max_concurrent: fc.jsonValue(),
        retry_config: fc.jsonValue(),
        fallback_models: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(anyRecord, (v) => {
        const { policy, warnings } = parsePolicy(v);
        checkShape(policy, warnings);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on JS values beyond JSON (bigint, NaN, undefined, null prototypes, Maps)", () => {
    const weird = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withDate: true,
      key: fc.oneof(fc.string(), fc.constantFrom(...KEYS)),
    });
    fc.assert(
      fc.property(
        weird,
        fc.record({ rate_limits: weird, max_concurrent: weird, retry_config: weird, fallback_models: weird }),
        (a, b) => {
          checkShape(parsePolicy(a).policy, parsePolicy(a).warnings);
          checkShape(parsePolicy(b).policy, parsePolicy(b).warnings);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never drops a valid block because a sibling is malformed: each key reads as it does alone", () => {
    fc.assert(
      fc.property(record, (slots) => {
        const input: Record<string, unknown> = { ...slots.other };
        for (const key of KEYS) {
          const s = slots[key];
          if (s.kind === "absent") delete input[key];
          else input[key] = s.value;
        }
        const whole = parsePolicy(input);
        const expectedWarnings: string[] = [];
        for (const key of KEYS) {
          const s = slots[key];
          const alone = s.kind === "absent" ? parsePolicy({}) : parsePolicy({ [key]: s.value });
          expect(whole.policy[FIELD[key]]).toEqual(alone.policy[FIELD[key]]);
          expectedWarnings.push(...alone.warnings);
          if (s.kind === "valid") {
            expect(alone.warnings, key).toEqual([]);
            if (key !== "fallback_models") expect(whole.policy[FIELD[key]], key).toBeDefined();
            else expect(whole.policy.fallbackModels).toEqual(s.value);
          }
        }
        expect(whole.warnings).toEqual(expectedWarnings);
      }),
      { numRuns: 2000 },
    );
  });
});
