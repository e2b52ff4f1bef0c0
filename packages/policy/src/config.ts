/** The admin's algorithm choice (wire values). */
export type RateLimitAlgorithm = "fixed_window" | "sliding_window" | "token_bucket";

export const RATE_LIMIT_ALGORITHMS: readonly RateLimitAlgorithm[] = Object.freeze([
  "fixed_window",
  "sliding_window",
  "token_bucket",
]);

/** A target's rate limits (`rate_limits`), camelCase, defaults filled. */
export interface RateLimitConfig {
  /** Default `"sliding_window"`. */
  algorithm: RateLimitAlgorithm;
  /** A missing (or null) limit leaves its window out; so does 0. */
  requestsPerSecond?: number | null;
  requestsPerMinute?: number | null;
  requestsPerHour?: number | null;
  /** Bucket depth for `token_bucket`; ignored by the other algorithms. */
  burstSize?: number | null;
  /** `false` turns every limit off. Default `true`. */
  enabled: boolean;
  /** How long a store-backed view is relied on while the store fails. Default 200. */
  cacheTtlMs: number;
  /** Longest a request waits on the store. Default 10. */
  redisTimeoutMs: number;
  /** Share of the unreserved budget one sync may grant; >= 1 means local-only. Default 0.1. */
  localAllowance: number;
  /** Sync period of a busy key. Default 100. */
  syncIntervalMs: number;
}

/** A target's retry settings (`retry_config`). */
export interface RetryConfig {
  /** Retries after the first attempt (a non-negative integer). */
  numRetries: number;
  /** The longest backoff delay, seconds. */
  maxDelayS: number;
}

/** Everything a target's policy says. */
export interface Policy {
  rateLimits?: RateLimitConfig;
  /** 1..4294967295 concurrent requests. */
  maxConcurrent?: number;
  retryConfig?: RetryConfig;
  /** At most {@link MAX_FALLBACKS} non-empty names, in order, duplicates kept. */
  fallbackModels: string[];
}

/** One window of a rate limit. */
export interface RateWindow {
  limit: number;
  windowMs: number;
  /** Token-bucket depth, or the window's own limit for the other algorithms. */
  burst: number;
}

/** At most this many fallbacks per target. */
export const MAX_FALLBACKS = 5;

export const DEFAULT_CACHE_TTL_MS = 200;
export const DEFAULT_REDIS_TIMEOUT_MS = 10;
export const DEFAULT_LOCAL_ALLOWANCE = 0.1;
export const DEFAULT_SYNC_INTERVAL_MS = 100;

/** The defaults of every `rate_limits` field (no windows). */
export const RATE_LIMIT_DEFAULTS: Readonly<RateLimitConfig> = Object.freeze({
  algorithm: "sliding_window",
  enabled: true,
  cacheTtlMs: DEFAULT_CACHE_TTL_MS,
  redisTimeoutMs: DEFAULT_REDIS_TIMEOUT_MS,
  localAllowance: DEFAULT_LOCAL_ALLOWANCE,
  syncIntervalMs: DEFAULT_SYNC_INTERVAL_MS,
});

/** The in-code retry default `{ numRetries: 0, maxDelayS: 10 }` (never applied while parsing). */
export const DEFAULT_RETRY_CONFIG: Readonly<RetryConfig> = Object.freeze({ numRetries: 0, maxDelayS: 10 });

/** A full config from a partial one: every missing field takes its default. */
export function rateLimitConfig(partial: Partial<RateLimitConfig> = {}): RateLimitConfig {
  const out: RateLimitConfig = { ...RATE_LIMIT_DEFAULTS };
  for (const [key, value] of Object.entries(partial)) {
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Any of the three window limits present (0 included), whatever `enabled` says. */
export function hasLimits(c: RateLimitConfig): boolean {
  return c.requestsPerSecond != null || c.requestsPerMinute != null || c.requestsPerHour != null;
}

/** Enabled and at least one window. */
export function isActive(c: RateLimitConfig): boolean {
  return c.enabled && windows(c).length > 0;
}

/** `localAllowance >= 1`: each replica enforces the full limit alone, no store. */
export function isLocalOnly(c: RateLimitConfig): boolean {
  return c.localAllowance >= 1;
}

/**
 * The windows, second (1000 ms), minute (60000), hour (3600000) in that order; a missing or 0
 * limit leaves its window out. `burst` is `burstSize` for a token bucket with `burstSize > 0`,
 * else the window's own limit.
 */
export function windows(c: RateLimitConfig): RateWindow[] {
  const bucket =
    c.algorithm === "token_bucket" && c.burstSize != null && c.burstSize > 0 ? c.burstSize : undefined;
  const out: RateWindow[] = [];
  for (const [limit, windowMs] of [
    [c.requestsPerSecond, 1000],
    [c.requestsPerMinute, 60_000],
    [c.requestsPerHour, 3_600_000],
  ] as const) {
    if (limit != null && limit > 0) out.push({ limit, windowMs, burst: bucket ?? limit });
  }
  return out;
}

/** The window with the lowest rate (limit / windowMs); the first wins a tie. */
export function mostRestrictiveLimit(c: RateLimitConfig): { limit: number; windowMs: number } | undefined {
  let best: RateWindow | undefined;
  for (const w of windows(c)) {
    if (best === undefined || w.limit / w.windowMs < best.limit / best.windowMs) best = w;
  }
  return best && { limit: best.limit, windowMs: best.windowMs };
}

/**
 * `override` on top of `base`: algorithm and enabled from override; the three limits and
 * burstSize `override ?? base`; cacheTtlMs, redisTimeoutMs, syncIntervalMs from override only
 * when it differs from the default (200, 10, 100); localAllowance when it differs from 0.1.
 */
export function merge(base: RateLimitConfig, override: RateLimitConfig): RateLimitConfig {
  const tuned = (o: number, b: number, dflt: number) => (o !== dflt ? o : b);
  const out: RateLimitConfig = {
    algorithm: override.algorithm,
    enabled: override.enabled,
    cacheTtlMs: tuned(override.cacheTtlMs, base.cacheTtlMs, DEFAULT_CACHE_TTL_MS),
    redisTimeoutMs: tuned(override.redisTimeoutMs, base.redisTimeoutMs, DEFAULT_REDIS_TIMEOUT_MS),
    localAllowance:
      Math.abs(override.localAllowance - DEFAULT_LOCAL_ALLOWANCE) > Number.EPSILON
        ? override.localAllowance
        : base.localAllowance,
    syncIntervalMs: tuned(override.syncIntervalMs, base.syncIntervalMs, DEFAULT_SYNC_INTERVAL_MS),
  };
  for (const key of ["requestsPerSecond", "requestsPerMinute", "requestsPerHour", "burstSize"] as const) {
    const v = override[key] ?? base[key];
    if (v != null) out[key] = v;
  }
  return out;
}

const clamp = (v: number, lo: number, hi: number, dflt: number) =>
  Number.isNaN(v) ? dflt : Math.min(Math.max(v, lo), hi);

/**
 * The tuning knobs clamped into sane ranges (a bad publish must not wedge a gateway):
 * localAllowance -> 0.1 when not finite or <= 0 (no upper clamp); syncIntervalMs 10..10000;
 * cacheTtlMs 50..60000; redisTimeoutMs 1..5000 (a NaN, impossible on the wire, takes the default).
 */
export function sanitized(c: RateLimitConfig): RateLimitConfig {
  return {
    ...c,
    localAllowance:
      Number.isFinite(c.localAllowance) && c.localAllowance > 0 ? c.localAllowance : DEFAULT_LOCAL_ALLOWANCE,
    syncIntervalMs: clamp(c.syncIntervalMs, 10, 10_000, DEFAULT_SYNC_INTERVAL_MS),
    cacheTtlMs: clamp(c.cacheTtlMs, 50, 60_000, DEFAULT_CACHE_TTL_MS),
    redisTimeoutMs: clamp(c.redisTimeoutMs, 1, 5000, DEFAULT_REDIS_TIMEOUT_MS),
  };
}

/** No rate limits, no concurrency cap, no retry config and no fallbacks. */
export function isEmpty(p: Policy): boolean {
  return (
    p.rateLimits === undefined &&
    p.maxConcurrent === undefined &&
    p.retryConfig === undefined &&
    p.fallbackModels.length === 0
  );
}
