export {
  type BreakerCheck,
  type BreakerState,
  Breakers,
  type BreakersOptions,
  PROBE_RETRY_MS,
  type Refusal,
  type SharedBreakerLink,
  type StateName,
  type Tier,
  type TransitionCause,
  type TransitionEvent,
} from "./breakers.js";
export { type Clock, systemClock } from "./clock.js";
export {
  BreakerConfig,
  DEFAULT_BUCKETS,
  DEFAULT_MINIMUM_VOLUME,
  MAX_FAILURES_KEPT,
  MAX_OPEN_FOR_MS,
} from "./config.js";
export { BreakerConfigError } from "./errors.js";
export type { BreakerMetrics, MetricSample } from "./metrics.js";
export {
  RedisSharedBreakers,
  type RedisSharedBreakersOptions,
  type SharedCommand,
  type SharedRedisExec,
} from "./redis-shared.js";
export { type BreakerSignalLike, type BreakerVerdict, TwoTier, type TwoTierOptions } from "./two-tier.js";
