export { BODY_SCAN_BYTES, type FailureBody } from "./body.js";
export {
  type ClassifyOptions,
  CONCURRENCY_MARKERS,
  CONCURRENCY_RETRY_WAIT_MS,
  classify,
  type Failure,
  isQuotaExhausted429,
  isRetryableStatus,
  isVendorConcurrency429,
  QUOTA_MARKERS,
  vendorMaxConcurrency,
} from "./classify.js";
export { CONNECT_CODES, failureFrom, failureFromResponse, isFailure, TIMEOUT_CODES } from "./failure-from.js";
export { type HeaderRecord, type HeadersInput, type HeadersLike, headerValue } from "./headers.js";
export { parseImfFixdate, RETRY_AFTER_CAP_MS, retryAfterMs } from "./retry-after.js";
export { parseRfc3339Ms } from "./rfc3339.js";
export {
  type BudgetResource,
  parseDurationMs,
  type UpstreamBudget,
  upstreamBudgets,
} from "./upstream-budget.js";
export type { BreakerSignal, Verdict } from "./verdict.js";
