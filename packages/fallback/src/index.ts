// One clock, one deadline scope and one DeadlineExceededError for retry and fallback together.
export {
  type Clock,
  type Deadline,
  DeadlineExceededError,
  deadlineIn,
  InvalidDeadlineError,
  systemClock,
} from "@resil/retry";
export { AttemptTimeoutError } from "./attempt-timer.js";
export type {
  AttemptReport,
  CallEvent,
  CallMetrics,
  CallReport,
  HopReport,
  HopStop,
  MetricSample,
} from "./call-report.js";
export { FallbackConfigError } from "./errors.js";
export { expand, type FallbackList, type FallbacksOf, MAX_FALLBACKS_PER_NODE } from "./expand.js";
export {
  type BreakerGate,
  denialWaitMs,
  type GuardedAttemptOptions,
  guardedAttempt,
  type RateDecision,
  type RateGate,
  type RateHeaders,
} from "./guarded-attempt.js";
export {
  type ChainError,
  ChainOutcome,
  type ChainResult,
  type EndpointError,
  type Hop,
  type HopRecord,
  type Skip,
} from "./hop.js";
export {
  type CallBreakers,
  type CallRequest,
  type LimiterLike,
  ResilientCaller,
  type ResilientCallerOptions,
  type Send,
  type SlotDecision,
} from "./resilient-call.js";
export { type Attempt, type HopEvent, type RunOptions, run } from "./run.js";
