import { z } from "zod";
import {
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_LOCAL_ALLOWANCE,
  DEFAULT_REDIS_TIMEOUT_MS,
  DEFAULT_SYNC_INTERVAL_MS,
  MAX_FALLBACKS,
  type Policy,
  RATE_LIMIT_ALGORITHMS,
  type RateLimitConfig,
  type RetryConfig,
} from "./config.js";
import { show } from "./show.js";

// Error texts in the manner of serde: "missing field", "invalid type: null, expected a boolean",
// "invalid value: 1.5, expected u32", "unknown variant "x", expected one of ...".
const missingOr = (what: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? "missing field" : `invalid type: ${show(iss.input)}, expected ${what}`;
const outOfRange = (what: string) => (iss: { input?: unknown }) =>
  `invalid value: ${show(iss.input)}, expected ${what}`;

const U32_MAX = 4_294_967_295;
const U64_LIMIT = 2 ** 64; // the first value beyond u64

const isUnsigned = (max: number) => (n: number) => Number.isInteger(n) && n >= 0 && n <= max;

const u32 = z.number({ error: missingOr("u32") }).refine(isUnsigned(U32_MAX), { error: outOfRange("u32") });
const u64 = z
  .number({ error: missingOr("u64") })
  .refine((n) => Number.isInteger(n) && n >= 0 && n < U64_LIMIT, { error: outOfRange("u64") });
const f64 = z.number({ error: missingOr("f64") });

const variants = RATE_LIMIT_ALGORITHMS.map((a) => `"${a}"`).join(", ");
const algorithm = z.enum(RATE_LIMIT_ALGORITHMS as ["fixed_window", "sliding_window", "token_bucket"], {
  error: (iss) =>
    typeof iss.input === "string"
      ? `unknown variant ${show(iss.input)}, expected one of ${variants}`
      : `invalid type: ${show(iss.input)}, expected one of ${variants}`,
});

const zero = (n: number) => n + 0; // -0 (valid JSON) reads as 0

/**
 * The `rate_limits` block: snake_case on the wire, camelCase out, defaults filled for missing keys.
 * An explicit `null` on a defaulted field fails; the window limits and `burst_size` accept `null`
 * (absent). Integer fields reject fractions, negatives and out-of-range values. Unknown keys are
 * ignored. Not clamped (see `sanitized`).
 */
export const RateLimitsSchema = z
  .object(
    {
      algorithm: algorithm.default("sliding_window"),
      requests_per_second: u32.nullish(),
      requests_per_minute: u32.nullish(),
      requests_per_hour: u32.nullish(),
      burst_size: u32.nullish(),
      enabled: z.boolean({ error: missingOr("a boolean") }).default(true),
      cache_ttl_ms: u64.default(DEFAULT_CACHE_TTL_MS),
      redis_timeout_ms: u64.default(DEFAULT_REDIS_TIMEOUT_MS),
      local_allowance: f64.default(DEFAULT_LOCAL_ALLOWANCE),
      sync_interval_ms: u64.default(DEFAULT_SYNC_INTERVAL_MS),
    },
    { error: (iss) => `invalid type: ${show(iss.input)}, expected a rate_limits object` },
  )
  .transform((w): RateLimitConfig => {
    // In the wire's field order; an absent or null limit leaves no key.
    const c = { algorithm: w.algorithm } as RateLimitConfig;
    if (w.requests_per_second != null) c.requestsPerSecond = zero(w.requests_per_second);
    if (w.requests_per_minute != null) c.requestsPerMinute = zero(w.requests_per_minute);
    if (w.requests_per_hour != null) c.requestsPerHour = zero(w.requests_per_hour);
    if (w.burst_size != null) c.burstSize = zero(w.burst_size);
    c.enabled = w.enabled;
    c.cacheTtlMs = zero(w.cache_ttl_ms);
    c.redisTimeoutMs = zero(w.redis_timeout_ms);
    c.localAllowance = zero(w.local_allowance);
    c.syncIntervalMs = zero(w.sync_interval_ms);
    return c;
  });

/** The text of the range check on `max_delay_s`. */
export const MAX_DELAY_OUT_OF_RANGE = "max_delay_s out of range";

/**
 * The `retry_config` block: `num_retries` (a non-negative integer) and `max_delay_s` (a number),
 * both required, unknown keys ignored; then `max_delay_s` must be finite and >= 0 as a 32-bit float
 * (a value beyond 3.4e38 overflows it), else the error {@link MAX_DELAY_OUT_OF_RANGE}.
 */
export const RetryConfigSchema = z
  .object(
    {
      num_retries: z
        .number({ error: missingOr("usize") })
        .refine((n) => Number.isInteger(n) && n >= 0 && n < U64_LIMIT, { error: outOfRange("usize") }),
      max_delay_s: z.number({ error: missingOr("f32") }),
    },
    { error: (iss) => `invalid type: ${show(iss.input)}, expected a retry_config object` },
  )
  .transform((w, ctx): RetryConfig => {
    // As the f32 it becomes: Math.fround rounds to nearest, so 3.4028235e38 is f32::MAX, not inf.
    if (!Number.isFinite(Math.fround(w.max_delay_s)) || w.max_delay_s < 0) {
      ctx.issues.push({ code: "custom", message: MAX_DELAY_OUT_OF_RANGE, input: w.max_delay_s });
      return z.NEVER;
    }
    return { numRetries: zero(w.num_retries), maxDelayS: zero(w.max_delay_s) };
  });

/** `max_concurrent`: a JSON integer 1..4294967295. */
export const MaxConcurrentSchema = z.custom<number>(
  (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= U32_MAX,
  { error: (iss) => `${show(iss.input)} is not a positive integer` },
);

/** `fallback_models` read strictly: a list of at most 5 non-empty strings. */
export const FallbackModelsSchema = z
  .array(z.string({ error: missingOr("a string") }).min(1, { error: "empty model name" }), {
    error: (iss) => `${show(iss.input)} is not a list`,
  })
  .max(MAX_FALLBACKS, { error: `more than ${MAX_FALLBACKS} entries` });

/**
 * The whole record, STRICT: any malformed block fails the parse (use it to validate what you are
 * about to publish). Other keys of the record are ignored; `null` or a missing key is an absent
 * block. Reading a published record uses the lenient `parsePolicy` instead.
 */
export const PolicySchema = z
  .object(
    {
      rate_limits: RateLimitsSchema.nullish(),
      max_concurrent: MaxConcurrentSchema.nullish(),
      retry_config: RetryConfigSchema.nullish(),
      fallback_models: FallbackModelsSchema.nullish(),
    },
    { error: (iss) => `invalid type: ${show(iss.input)}, expected a policy object` },
  )
  .transform((w): Policy => {
    const p: Policy = { fallbackModels: w.fallback_models ?? [] };
    if (w.rate_limits != null) p.rateLimits = w.rate_limits;
    if (w.max_concurrent != null) p.maxConcurrent = w.max_concurrent;
    if (w.retry_config != null) p.retryConfig = w.retry_config;
    return p;
  });

/** The wire (snake_case) shapes these schemas accept. */
export type RateLimitsWire = z.input<typeof RateLimitsSchema>;
export type RetryConfigWire = z.input<typeof RetryConfigSchema>;
export type PolicyWire = z.input<typeof PolicySchema>;

/** A zod error as one line: `path: message` per issue, joined by "; ". */
export function errorText(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}
