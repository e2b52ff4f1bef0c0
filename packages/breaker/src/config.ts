import { BreakerConfigError } from "./errors.js";

/** Older failures are dropped past this count, so no threshold above it could ever be reached. */
export const MAX_FAILURES_KEPT = 64;

/** The longest a delay hint (`openFor`) keeps a breaker open: one hour, as classify caps hints. */
export const MAX_OPEN_FOR_MS = 3_600_000;

/** When a breaker opens and for how long. */
export interface BreakerConfig {
  /** Count mode: failures within `windowMs` that open a closed breaker. */
  failureThreshold: number;
  /** How far back failures (and, in rate mode, calls) count, ms. */
  windowMs: number;
  /** How long an opened breaker refuses, ms; also how long a half-open probe may run. */
  openForMs: number;
  /** Distinct failure sources needed among those failures (2 for a provider: one bad target is not the provider's fault). */
  minSources: number;
  /**
   * Rate mode when set: the share of failed calls (0 < r <= 1) in the rolling window that opens a
   * closed breaker, once `minimumVolume` calls were seen there; `failureThreshold` is then unused.
   */
  failureRateThreshold?: number;
  /** Rate mode: calls in the window before the rate is trusted. Default 20. */
  minimumVolume?: number;
  /** Rate mode: how many buckets the window rolls in. Default 10. */
  buckets?: number;
}

export const DEFAULT_MINIMUM_VOLUME = 20;
export const DEFAULT_BUCKETS = 10;

export const BreakerConfig = {
  /** Per target: 5 failures in 60 s open it for 30 s. */
  deployment(): BreakerConfig {
    return { failureThreshold: 5, windowMs: 60_000, openForMs: 30_000, minSources: 1 };
  },
  /** Per provider: 5 failures from at least 2 targets in 60 s open it for 30 s. */
  vendor(): BreakerConfig {
    return { failureThreshold: 5, windowMs: 60_000, openForMs: 30_000, minSources: 2 };
  },
  /**
   * Rate mode: 50 % failures over at least 20 calls in a 10 s window of 10 buckets open for 30 s;
   * `overrides` replace any field (`minSources: 2` for a provider tier).
   */
  errorRate(overrides: Partial<BreakerConfig> = {}): BreakerConfig {
    return {
      failureThreshold: 5,
      windowMs: 10_000,
      openForMs: 30_000,
      minSources: 1,
      failureRateThreshold: 0.5,
      minimumVolume: DEFAULT_MINIMUM_VOLUME,
      buckets: DEFAULT_BUCKETS,
      ...overrides,
    };
  },
  /** Throws `BreakerConfigError` naming the first bad field. */
  validate(config: BreakerConfig): BreakerConfig {
    const { failureThreshold, windowMs, openForMs, minSources } = config;
    if (!Number.isInteger(failureThreshold) || failureThreshold < 1 || failureThreshold > MAX_FAILURES_KEPT) {
      throw new BreakerConfigError("failureThreshold", `must be an integer from 1 to ${MAX_FAILURES_KEPT}`);
    }
    if (!Number.isFinite(windowMs) || windowMs <= 0)
      throw new BreakerConfigError("windowMs", "must be finite and > 0");
    if (!Number.isFinite(openForMs) || openForMs <= 0) {
      throw new BreakerConfigError("openForMs", "must be finite and > 0");
    }
    if (!Number.isInteger(minSources) || minSources < 1) {
      throw new BreakerConfigError("minSources", "must be an integer >= 1");
    }
    const { failureRateThreshold: rate, minimumVolume, buckets } = config;
    if (rate !== undefined && !(rate > 0 && rate <= 1)) {
      throw new BreakerConfigError("failureRateThreshold", "must be > 0 and <= 1 (a share of calls)");
    }
    if (minimumVolume !== undefined && (!Number.isSafeInteger(minimumVolume) || minimumVolume < 1)) {
      throw new BreakerConfigError("minimumVolume", "must be an integer >= 1");
    }
    if (buckets !== undefined && (!Number.isInteger(buckets) || buckets < 1 || buckets > 1000)) {
      throw new BreakerConfigError("buckets", "must be an integer from 1 to 1000");
    }
    return config;
  },
};
