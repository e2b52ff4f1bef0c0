import { BreakerConfigError } from "./errors.js";

/** When a breaker opens and for how long. */
/** Older failures are dropped past this count, so no threshold above it could ever be reached. */
export const MAX_FAILURES_KEPT = 64;

export interface BreakerConfig {
  /** Failures within `windowMs` that open a closed breaker. */
  failureThreshold: number;
  /** How far back failures count, ms. */
  windowMs: number;
  /** How long an opened breaker refuses, ms; also how long a half-open probe may run. */
  openForMs: number;
  /** Distinct failure sources needed among those failures (2 for a provider: one bad target is not the provider's fault). */
  minSources: number;
}

export const BreakerConfig = {
  /** Per target: 5 failures in 60 s open it for 30 s. */
  deployment(): BreakerConfig {
    return { failureThreshold: 5, windowMs: 60_000, openForMs: 30_000, minSources: 1 };
  },
  /** Per provider: 5 failures from at least 2 targets in 60 s open it for 30 s. */
  vendor(): BreakerConfig {
    return { failureThreshold: 5, windowMs: 60_000, openForMs: 30_000, minSources: 2 };
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
    return config;
  },
};
