export { type Budget, InvalidBudgetsError } from "./budgets.js";
export {
  LIMITER_DEFAULTS,
  type LimiterOptions,
  RATE_DEFAULTS,
  type RateAlgorithm,
  type RateLimitConfig,
  type StoreUnavailableMode,
} from "./config.js";
export {
  type AcquireResult,
  type Decision,
  type DenyReason,
  OUTCOMES,
  type Outcome,
  type RateHeaders,
  type Slot,
  UNLIMITED,
} from "./decision.js";
export {
  InvalidCostError,
  InvalidOptionError,
  InvalidPolicyError,
  LimiterClosedError,
  StoreTimeoutError,
} from "./errors.js";
export type { LimiterEvent, LimiterEventListener } from "./events.js";
export { Limiter, type PolicyEntry } from "./limiter.js";
export { formatPrometheus, type LimiterMetrics, type MetricSample, SYNC_SECONDS_BUCKETS } from "./metrics.js";
export {
  CostExceedsLimitError,
  PACER_DEFAULTS,
  type PacedLimiter,
  Pacer,
  type PacerOptions,
  type WaitOptions,
  WaitTimeoutError,
} from "./pacer.js";
export { InvalidSettleError } from "./settle.js";
export { InvalidBudgetError, type UpstreamBudgetLike } from "./upstream-hold.js";
