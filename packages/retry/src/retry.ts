import type { Verdict } from "@resil/classify";
import { type Clock, systemClock } from "./clock.js";
import type { RetryPolicy } from "./policy.js";
import { signalScope } from "./scope.js";

export type RetryResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Why the loop ended. */
export type RetryStop =
  | "success"
  /** The verdict said not retryable. */
  | "notRetryable"
  /** maxRetries reached. */
  | "exhausted"
  /** The next wait would have crossed the deadline. */
  | "deadline"
  /** The caller's signal aborted. */
  | "aborted";

export interface RetryOutcome<T> {
  result: RetryResult<T>;
  /** Attempts made minus one. */
  retries: number;
  /** The final error's verdict; absent on success. */
  verdict?: Verdict;
  stop: RetryStop;
}

/** Emitted before each wait: attempt `attempt` failed with `verdict`, the next starts after `waitMs`. */
export interface RetryEvent {
  attempt: number;
  error: unknown;
  verdict: Verdict;
  waitMs: number;
  /** The wait came from the upstream's delay hint, not from backoff. */
  hinted: boolean;
}

export interface RetryOptions {
  /** Default `systemClock`; `deadlineMs` is on its timeline. */
  clock?: Clock;
  /** U[0,1) source for jitter. Default `Math.random`. */
  random?: () => number;
  /** Cancels the waits; `op` receives a signal that follows it and the deadline. */
  signal?: AbortSignal;
  /** Called before each wait. A throwing hook is ignored. */
  onRetry?: (event: RetryEvent) => void;
}

/** One attempt; `attempt` is 0-based and `signal` aborts on the caller's abort or the deadline. */
export type RetryOperation<T> = (attempt: number, signal: AbortSignal) => T | PromiseLike<T>;

/** A hint is honoured as 1.0x to 1.1x so that clients told the same hint do not return in lockstep. */
const HINT_SPREAD = 0.1;

/**
 * Runs `op` until it succeeds, its error is not retryable, `policy.maxRetries` is spent, the next wait
 * would cross `deadlineMs`, or `options.signal` aborts. A running op is never cut by retry itself.
 */
export async function retry<T>(
  policy: RetryPolicy,
  deadlineMs: number | undefined,
  op: RetryOperation<T>,
  classify: (error: unknown) => Verdict,
  options: RetryOptions = {},
): Promise<RetryOutcome<T>> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const caller = options.signal;
  if (caller?.aborted) return { result: { ok: false, error: caller.reason }, retries: 0, stop: "aborted" };
  const scope = signalScope(caller, deadlineMs, clock);
  try {
    for (let retries = 0; ; retries++) {
      let error: unknown;
      try {
        const value = await op(retries, scope.signal);
        return { result: { ok: true, value }, retries, stop: "success" };
      } catch (caught) {
        error = caught;
      }
      const verdict = classify(error);
      const fail = (stop: RetryStop): RetryOutcome<T> => ({
        result: { ok: false, error },
        retries,
        verdict,
        stop,
      });
      if (!verdict.retryable) return fail("notRetryable");
      if (retries >= policy.maxRetries) return fail("exhausted");
      if (caller?.aborted) return fail("aborted");
      const hint = verdict.retryAfterMs;
      const hinted = hint !== undefined && Number.isFinite(hint) && hint >= 0;
      const waitMs = hinted ? hint + hint * HINT_SPREAD * random() : policy.backoff.delay(retries, random);
      if (deadlineMs !== undefined && clock.now() + waitMs >= deadlineMs) return fail("deadline");
      try {
        options.onRetry?.({ attempt: retries, error, verdict, waitMs, hinted });
      } catch {
        // observability must not change the outcome
      }
      if (waitMs > 0) await clock.sleep(waitMs, scope.signal).catch(() => {});
      if (caller?.aborted) return fail("aborted");
      if (scope.signal.aborted) return fail("deadline");
    }
  } finally {
    scope.dispose();
  }
}
