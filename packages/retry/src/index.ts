export { Backoff, type BackoffOptions, type Jitter, secondsToMs } from "./backoff.js";
export { type Clock, deadlineIn, MAX_TIMER_MS, systemClock } from "./clock.js";
export { type Deadline, MAX_DEADLINE_AHEAD_MS, type ResolvedDeadline, resolveDeadline } from "./deadline.js";
export { BackoffConfigError, DeadlineExceededError, InvalidDeadlineError } from "./errors.js";
export { ManualClock } from "./manual-clock.js";
export { MAX_RETRIES, type RetryConfig, RetryPolicy } from "./policy.js";
export {
  type GiveUpEvent,
  type RetryEvent,
  type RetryOperation,
  type RetryOptions,
  type RetryOutcome,
  type RetryResult,
  type RetryStop,
  retry,
} from "./retry.js";
export { type SignalScope, signalScope } from "./scope.js";
