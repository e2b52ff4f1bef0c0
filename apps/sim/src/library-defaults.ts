import { LIMITER_DEFAULTS, RATE_DEFAULTS } from "@resil/limit";
import type { Scenario } from "./scenario.js";

/** The library's own defaults for every limiter option a scenario can set (scenario field names). */
export const LIBRARY_DEFAULTS = Object.freeze({
  syncIntervalMs: RATE_DEFAULTS.syncIntervalMs,
  localAllowance: RATE_DEFAULTS.localAllowance,
  cacheTtlMs: RATE_DEFAULTS.cacheTtlMs,
  redisTimeoutMs: RATE_DEFAULTS.redisTimeoutMs,
  leaseTtlMs: LIMITER_DEFAULTS.leaseTtlMs,
  heartbeatMs: LIMITER_DEFAULTS.heartbeatMs,
  slowSyncMs: LIMITER_DEFAULTS.slowSyncMs,
  roundTimeoutMs: LIMITER_DEFAULTS.roundTimeoutMs,
  tickMs: LIMITER_DEFAULTS.tickMs,
  maxKeysPerRound: LIMITER_DEFAULTS.maxKeysPerRound,
  onStoreUnavailable: LIMITER_DEFAULTS.onStoreUnavailable,
  lastMile: LIMITER_DEFAULTS.lastMile,
});

export type LimiterOption = keyof typeof LIBRARY_DEFAULTS;

/** A limiter option the scenario sets to something other than the library's default. */
export interface TuningOverride {
  option: LimiterOption;
  value: number | string;
  library: number | string;
}

/** The scenario's limiter options that differ from the library's defaults, in a fixed order. */
export function tuningOverrides(s: Scenario): TuningOverride[] {
  const out: TuningOverride[] = [];
  for (const option of Object.keys(LIBRARY_DEFAULTS) as LimiterOption[]) {
    const value = s.limiter[option];
    const library = LIBRARY_DEFAULTS[option];
    if (value !== library) out.push({ option, value, library });
  }
  return out;
}
