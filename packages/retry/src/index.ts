export { Backoff, type BackoffOptions, type Jitter, secondsToMs } from "./backoff.js";
export { type Clock, deadlineIn, systemClock } from "./clock.js";
export { BackoffConfigError, DeadlineExceededError } from "./errors.js";
export { ManualClock } from "./manual-clock.js";
export { MAX_RETRIES, type RetryConfig, RetryPolicy } from "./policy.js";
export {
  type RetryEvent,
  type RetryOperation,
  type RetryOptions,
  type RetryOutcome,
  type RetryResult,
  type RetryStop,
  retry,
} from "./retry.js";
export { type SignalScope, signalScope } from "./scope.js";
