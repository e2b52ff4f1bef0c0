import { bodyHasMarker, type FailureBody } from "./body.js";
import { type HeadersInput, readableHeader } from "./headers.js";
import { parseU64 } from "./numbers.js";
import { retryAfterMs } from "./retry-after.js";
import type { Verdict } from "./verdict.js";

/** A failed upstream call as the gateway saw it. */
export type Failure =
  /** The upstream answered with this HTTP status (headers case-insensitive; body bytes or text). */
  | { kind: "status"; code: number; headers?: HeadersInput | undefined; body?: FailureBody | undefined }
  /** No answer in time. */
  | { kind: "timeout" }
  /** No connection (refused, reset, DNS). */
  | { kind: "connect" }
  /** A vendor WebSocket closed with this code. */
  | { kind: "wsClose"; code: number }
  /** Anything else (decode errors, bugs, a caller's own abort): neither retried nor failed over. */
  | { kind: "other" };

/** Options of {@link classify}. */
export interface ClassifyOptions {
  /** The clock for an HTTP-date `Retry-After`, in Unix ms. Default `Date.now()`. */
  nowMs?: number;
}

/** The wait before retrying a provider-concurrency 429 that carries no delay hint. */
export const CONCURRENCY_RETRY_WAIT_MS = 250;

/** Body markers of a provider-concurrency 429 (matched in the lowercased first 4096 bytes). */
export const CONCURRENCY_MARKERS: readonly string[] = Object.freeze([
  "too_many_concurrent_requests",
  "concurrent_limit",
  "concurrency_limit",
  "too many concurrent",
  "concurrency limit",
]);

/**
 * Body markers of an exhausted quota or billing limit in a 429 (OpenAI's `insufficient_quota` and
 * equivalents): waiting does not refill it, so such a 429 fails over without a retry.
 */
export const QUOTA_MARKERS: readonly string[] = Object.freeze([
  "insufficient_quota",
  "quota_exceeded",
  "billing_hard_limit_reached",
]);

function verdict(
  retryable: boolean,
  failover: boolean,
  breaker: Verdict["breaker"],
  callerError = false,
  hintMs?: number,
  vendorConcurrency = false,
): Verdict {
  const v: Verdict = { retryable, failover, breaker, callerError, vendorConcurrency };
  if (hintMs !== undefined) v.retryAfterMs = hintMs;
  return v;
}

/** Retryable, fails over, counts against the target and its provider. */
const transient = (hintMs?: number): Verdict => verdict(true, true, { kind: "vendor" }, false, hintMs);
const inert = (callerError = false): Verdict => verdict(false, false, { kind: "ignore" }, callerError);

/**
 * What a failure means: retry it here, fail over to the next target, which breaker to signal,
 * whether the request itself is wrong, and the upstream's delay hint. Rules in order:
 *
 * | failure | verdict |
 * |---|---|
 * | timeout, connect, wsClose 1011 / 1013 | transient (retry, fail over, vendor) |
 * | wsClose 1008 | fail over, deployment |
 * | other wsClose, other | nothing |
 * | 408, 409 | transient, breaker ignore; hint |
 * | 429 provider concurrency | retry, fail over, ignore, vendorConcurrency; hint or 250 ms |
 * | 429 quota exhausted (extension) | fail over only; openFor(hint) or deployment; hint |
 * | other 429 | retry, fail over; openFor(hint) or deployment; hint |
 * | 500, 502, 503, 504 | transient; hint |
 * | 401, 402, 403 | fail over, deployment |
 * | 400, 404, 405, 411, 413, 414, 415, 422 | callerError |
 * | other >= 500 | fail over, vendor |
 * | anything else | nothing; callerError when >= 400 |
 */
export function classify(failure: Failure, options: ClassifyOptions = {}): Verdict {
  switch (failure.kind) {
    case "timeout":
    case "connect":
      return transient();
    case "wsClose":
      if (failure.code === 1011 || failure.code === 1013) return transient();
      if (failure.code === 1008) return verdict(false, true, { kind: "deployment" });
      return inert();
    case "status":
      return classifyStatus(failure.code, failure.headers, failure.body, options.nowMs);
    default:
      return inert();
  }
}

function classifyStatus(
  code: number,
  headers: HeadersInput | undefined,
  body: FailureBody | undefined,
  nowMs: number | undefined,
): Verdict {
  const hint = headers == null ? undefined : retryAfterMs(headers, nowMs);
  switch (code) {
    case 408:
    case 409:
      return verdict(true, true, { kind: "ignore" }, false, hint);
    case 429:
      if (isVendorConcurrency429(headers, body)) {
        return verdict(true, true, { kind: "ignore" }, false, hint ?? CONCURRENCY_RETRY_WAIT_MS, true);
      }
      return verdict(
        !isQuotaExhausted429(body),
        true,
        hint === undefined ? { kind: "deployment" } : { kind: "openFor", ms: hint },
        false,
        hint,
      );
    case 500:
    case 502:
    case 503:
    case 504:
      return transient(hint);
    case 401:
    case 402:
    case 403:
      return verdict(false, true, { kind: "deployment" });
    case 400:
    case 404:
    case 405:
    case 411:
    case 413:
    case 414:
    case 415:
    case 422:
      return inert(true);
    default:
      if (code >= 500) return verdict(false, true, { kind: "vendor" });
      return inert(code >= 400);
  }
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504]);

/** HTTP statuses worth retrying on the same target (the OpenAI SDK's set): 408, 409, 429, 500, 502, 503, 504. */
export function isRetryableStatus(code: number): boolean {
  return RETRYABLE_STATUSES.has(code);
}

/**
 * A provider's "too many concurrent requests" 429: the body's first 4096 bytes (lowercased) hold a
 * {@link CONCURRENCY_MARKERS} entry, or `current-concurrent-requests` and
 * `maximum-concurrent-requests` are both unsigned integers with current >= maximum.
 */
export function isVendorConcurrency429(headers?: HeadersInput, body?: FailureBody): boolean {
  if (bodyHasMarker(body, CONCURRENCY_MARKERS)) return true;
  if (headers == null) return false;
  const current = u64Header(headers, "current-concurrent-requests");
  const maximum = u64Header(headers, "maximum-concurrent-requests");
  return current !== undefined && maximum !== undefined && current >= maximum;
}

/** A 429 body (first 4096 bytes, lowercased) that names an exhausted quota: {@link QUOTA_MARKERS}. */
export function isQuotaExhausted429(body?: FailureBody): boolean {
  return bodyHasMarker(body, QUOTA_MARKERS);
}

/** The provider's advertised concurrency cap (`maximum-concurrent-requests`), for logs. */
export function vendorMaxConcurrency(headers: HeadersInput): number | undefined {
  const max = u64Header(headers, "maximum-concurrent-requests");
  return max === undefined ? undefined : Number(max);
}

// Compared as bigint: two counts above 2^53 must not round to equal.
function u64Header(headers: HeadersInput, name: string): bigint | undefined {
  const v = readableHeader(headers, name);
  return v === undefined ? undefined : parseU64(v);
}
