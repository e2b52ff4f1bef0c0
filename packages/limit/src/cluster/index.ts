export {
  type KeyTuning,
  keyTuning,
  LIMITER_DEFAULTS,
  type LimiterOptions,
  RATE_DEFAULTS,
  type RateAlgorithm,
  type RateLimitConfig,
  type RatePolicy,
  ratePolicy,
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
export { concurrencyKey, configHash, rateKey, registryKey, serviceTag, subjectTag } from "./keys.js";
export {
  BOUNDARY_LEAD_MS,
  CREDIT_TRUST,
  Limiter,
  MAX_ROUNDS_IN_FLIGHT,
  MIN_CONCURRENCY_LEASE_MS,
  type PolicyEntry,
} from "./limiter.js";
export { formatPrometheus, type LimiterMetrics, type MetricSample, SYNC_SECONDS_BUCKETS } from "./metrics.js";
export { SeededRandom } from "./prng.js";
export {
  type DriveOptions,
  type DriveResult,
  middleWindows,
  pickRoundRobin,
  pickUniform,
  type ReplicaPicker,
  Simulation,
  type SimulationOptions,
  simConfig,
  type WindowCount,
} from "./simulation.js";
