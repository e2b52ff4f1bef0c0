export { LocalPolicyError, RateLimitedError, type RateLimitedInfo } from "./errors.js";
export type { Meter, MeterStatus } from "./meter.js";
export type { LocalAcquireOptions, LocalLimiterMetrics, LocalLimiterOptions } from "./metrics.js";
export {
  type MultiAcquired,
  type MultiAcquireResult,
  MultiRateLimiter,
  type MultiRejected,
  type Tier,
} from "./multi-rate-limiter.js";
export type { Permit } from "./permit.js";
export { RateLimiter } from "./rate-limiter.js";
export { RateLimiterPolicy } from "./rate-limiter-policy.js";
export { Reservation, type ReservationState } from "./reservation.js";
export { WindowPolicy } from "./window-policy.js";
export { WindowedRateLimiter } from "./windowed-rate-limiter.js";
