import {
  RATELIMIT,
  RATELIMIT_POLICY,
  RETRY_AFTER,
  X_RATELIMIT_LIMIT,
  X_RATELIMIT_REMAINING,
  X_RATELIMIT_RESET,
} from "@resil/http";
import type { DecisionHeaders, RateLimitsLike } from "./limiter-like.js";

/** Which rate-limit headers to send: `X-RateLimit-*`, the IETF `RateLimit` / `RateLimit-Policy`, both, or none. */
export type HeaderMode = "x-ratelimit" | "ietf" | "both" | "none";

export const HEADER_MODES: readonly HeaderMode[] = ["x-ratelimit", "ietf", "both", "none"];

/** Writes one header to a target; called in the order the headers are to be written. */
export type EmitHeader<T> = (target: T, name: string, value: string) => void;

const WINDOWS: ReadonlyArray<
  [field: "requestsPerSecond" | "requestsPerMinute" | "requestsPerHour", ms: number, name: string]
> = [
  ["requestsPerSecond", 1000, "second"],
  ["requestsPerMinute", 60_000, "minute"],
  ["requestsPerHour", 3_600_000, "hour"],
];

/**
 * The IETF policy of a family: named after its most restrictive window (the lowest limit per ms,
 * the window the decision's `limit` is of), "default" without a known window. The field is cached
 * per limit, so a steady limit costs no string building.
 */
export class IetfPolicy {
  private readonly name: string;
  private readonly windowS: number | undefined;
  private cachedLimit = -1;
  private cachedField = "";

  constructor(rateLimits: RateLimitsLike | null | undefined) {
    let best: [number, string] | undefined;
    let bestRate = Number.POSITIVE_INFINITY;
    for (const [field, ms, name] of WINDOWS) {
      const limit = rateLimits?.[field];
      if (limit == null || !(limit > 0)) continue;
      if (Math.floor(limit) / ms < bestRate) {
        bestRate = Math.floor(limit) / ms;
        best = [ms, name];
      }
    }
    this.name = `"${best?.[1] ?? "default"}"`;
    this.windowS = best === undefined ? undefined : best[0] / 1000;
  }

  /** `RateLimit-Policy` for this limit. */
  policy(limit: number): string {
    if (limit !== this.cachedLimit) {
      this.cachedLimit = limit;
      this.cachedField = `${this.name};q=${limit}${this.windowS === undefined ? "" : `;w=${this.windowS}`}`;
    }
    return this.cachedField;
  }

  /** `RateLimit`: what is left and the seconds until the reset (rounded up, never negative). */
  limit(headers: DecisionHeaders, nowMs: number): string {
    const t = Math.max(0, Math.ceil(headers.reset - nowMs / 1000));
    return `${this.name};r=${headers.remaining};t=${t}`;
  }
}

/** Emits the rate-limit headers of `mode` for a decision (no `Retry-After`: rejections add it). */
export function emitRateHeaders<T>(
  mode: HeaderMode,
  headers: DecisionHeaders,
  ietf: IetfPolicy,
  target: T,
  emit: EmitHeader<T>,
): void {
  if (mode === "none") return;
  if (mode !== "ietf") {
    emit(target, X_RATELIMIT_LIMIT, String(headers.limit));
    emit(target, X_RATELIMIT_REMAINING, String(headers.remaining));
    emit(target, X_RATELIMIT_RESET, String(headers.reset));
  }
  if (mode !== "x-ratelimit") {
    emit(target, RATELIMIT, ietf.limit(headers, Date.now()));
    emit(target, RATELIMIT_POLICY, ietf.policy(headers.limit));
  }
}

export { RETRY_AFTER };
