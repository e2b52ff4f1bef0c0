import type { TwoTier } from "@resil/breaker";
import type { Verdict } from "@resil/classify";
import type { Hop } from "./hop.js";
import type { Attempt } from "./run.js";

/** The `x-ratelimit-*` view of a limiter decision; `reset` in Unix seconds, `retryAfter` in seconds. */
export interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter?: number;
}

/** What a limiter answers (structurally @resil/limit's `Decision`). */
export type RateDecision =
  | { kind: "unlimited" }
  | { kind: "allow"; headers: RateHeaders }
  | { kind: "deny"; headers: RateHeaders };

/** Anything that can admit or deny a subject (structurally @resil/limit's `Limiter`). */
export interface RateGate {
  check(subject: string): Promise<RateDecision>;
}

/** The parts of `TwoTier` the helper uses. */
export type BreakerGate = Pick<TwoTier, "check" | "recordSuccess" | "recordFailure">;

export interface GuardedAttemptOptions<T> {
  /** The call itself (wrap it in `retry` for per-hop retries); throw on failure. */
  call: (endpoint: string, signal: AbortSignal, index: number) => T | PromiseLike<T>;
  /** A hop whose breaker refuses is skipped as `breakerOpen`. */
  breakers?: BreakerGate;
  /** The provider key of an endpoint (provider + API host). Default: the endpoint itself. */
  vendorOf?: (endpoint: string) => string;
  /** A hop whose limiter denies is skipped as `rateLimited`. Checked after the breaker. */
  limiter?: RateGate;
  /** The limiter subject of an endpoint. Default: the endpoint itself. */
  subjectOf?: (endpoint: string) => string;
  /** A reason to skip an endpoint as `ineligible`, or undefined to try it. Checked first. */
  ineligible?: (endpoint: string) => string | undefined;
  /** With `breakers`, records each hop's outcome: success, or a failure by its verdict. Default: no recording. */
  classify?: (error: unknown) => Verdict;
  /** Unix ms, for a denial that gives only `reset`. Default `Date.now`. */
  unixNow?: () => number;
}

/** The wait a denial asks for: `retryAfter`, else the time to `reset`. */
export function denialWaitMs(headers: RateHeaders, unixNowMs: number): number {
  const ra = headers.retryAfter;
  if (ra !== undefined && Number.isFinite(ra) && ra >= 0) return ra * 1000;
  return Math.max(0, headers.reset * 1000 - unixNowMs);
}

/**
 * An `attempt` for `run` that skips ineligible endpoints, open breakers and denying limiters before
 * calling. It never throws: a guard or hook that throws (or a limiter whose `check` rejects) fails the
 * hop with that error, like a failed call, so `run` decides by `trigger` whether to move on.
 */
export function guardedAttempt<T>(options: GuardedAttemptOptions<T>): Attempt<T, unknown> {
  const vendorOf = options.vendorOf ?? ((e: string) => e);
  const subjectOf = options.subjectOf ?? ((e: string) => e);
  const unixNow = options.unixNow ?? Date.now;
  const { breakers, limiter, classify } = options;

  // The skip an endpoint earns before it is called, if any.
  const gate = async (endpoint: string, vendor: string): Promise<Hop<T, unknown> | undefined> => {
    const reason = options.ineligible?.(endpoint);
    if (reason !== undefined) return { kind: "skipped", skip: { kind: "ineligible", reason } };
    if (breakers) {
      const open = breakers.check(endpoint, vendor);
      if (!open.allowed) return { kind: "skipped", skip: { kind: "breakerOpen", retryInMs: open.retryInMs } };
    }
    if (limiter) {
      const decision = await limiter.check(subjectOf(endpoint));
      if (decision.kind === "deny") {
        return {
          kind: "skipped",
          skip: { kind: "rateLimited", retryAfterMs: denialWaitMs(decision.headers, unixNow()) },
        };
      }
    }
    return undefined;
  };

  return async (endpoint, index, signal): Promise<Hop<T, unknown>> => {
    let vendor: string;
    try {
      vendor = vendorOf(endpoint);
      const skipped = await gate(endpoint, vendor);
      if (skipped) return skipped;
    } catch (error) {
      return { kind: "failed", error };
    }
    let value: T;
    try {
      value = await options.call(endpoint, signal, index);
    } catch (error) {
      record(() => breakers?.recordFailure(endpoint, vendor, classify!(error)));
      return { kind: "failed", error };
    }
    record(() => breakers?.recordSuccess(endpoint, vendor));
    return { kind: "served", value };
  };

  // Breaker bookkeeping (only with both `breakers` and `classify`) never changes the hop's outcome.
  function record(update: () => void): void {
    if (!breakers || !classify) return;
    try {
      update();
    } catch {
      // a throwing classify or breaker must not turn a served hop into a failure, or hide the call's error
    }
  }
}
