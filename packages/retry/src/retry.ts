import type { Verdict } from "@resil/classify";
import { type Clock, systemClock } from "./clock.js";
import { type Deadline, resolveDeadline } from "./deadline.js";
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
  /** The next wait would have crossed the deadline, or the deadline passed. */
  | "deadline"
  /** The next wait was longer than `longestWaitMs` (fail over rather than wait). */
  | "waitTooLong"
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

/** Emitted once when the loop ends without a value. */
export interface GiveUpEvent {
  /** Attempts made. */
  attempts: number;
  stop: Exclude<RetryStop, "success">;
  error: unknown;
  /** Absent when the caller aborted before the first attempt. */
  verdict?: Verdict;
}

export interface RetryOptions {
  /** Default `systemClock`; an absolute deadline is on its timeline. */
  clock?: Clock;
  /** U[0,1) source for jitter. Default `Math.random`. */
  random?: () => number;
  /** Cancels the waits; `op` receives a signal that follows it and the deadline. */
  signal?: AbortSignal;
  /** Called before each wait. A throwing hook is ignored. */
  onRetry?: (event: RetryEvent) => void;
  /** Called once when the loop gives up. A throwing hook is ignored. */
  onGiveUp?: (event: GiveUpEvent) => void;
  /**
   * A wait longer than this ends the loop at once with stop `waitTooLong` (the upstream asked for
   * a long pause: another target may serve sooner). Default: no limit.
   */
  longestWaitMs?: number;
}

/** One attempt; `attempt` is 0-based and `signal` aborts on the caller's abort or the deadline. */
export type RetryOperation<T> = (attempt: number, signal: AbortSignal) => T | PromiseLike<T>;

/** A hint is honoured as 1.0x to 1.1x so that clients told the same hint do not return in lockstep. */
const HINT_SPREAD = 0.1;

/**
 * Runs `op` until it succeeds, its error is not retryable, `policy.maxRetries` is spent, the next wait
 * would cross the deadline or exceed `longestWaitMs`, or `options.signal` aborts. A running op is
 * never cut by retry itself. `deadline`: `{ budgetMs }`, an AbortSignal, or a clock time
 * (`deadlineIn`); a value on another timeline rejects with `InvalidDeadlineError`.
 */
export async function retry<T>(
  policy: RetryPolicy,
  deadline: Deadline | undefined,
  op: RetryOperation<T>,
  classify: (error: unknown) => Verdict,
  options: RetryOptions = {},
): Promise<RetryOutcome<T>> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const caller = options.signal;
  const resolved = resolveDeadline(deadline, clock);
  const longest = options.longestWaitMs ?? Number.POSITIVE_INFINITY;
  const giveUp = (outcome: RetryOutcome<T>, attempts: number): RetryOutcome<T> => {
    if (outcome.stop !== "success" && options.onGiveUp) {
      const error = outcome.result.ok ? undefined : outcome.result.error;
      const event: GiveUpEvent = { attempts, stop: outcome.stop, error };
      if (outcome.verdict) event.verdict = outcome.verdict;
      try {
        options.onGiveUp(event);
      } catch {
        // observability must not change the outcome
      }
    }
    return outcome;
  };
  if (caller?.aborted) {
    return giveUp({ result: { ok: false, error: caller.reason }, retries: 0, stop: "aborted" }, 0);
  }
  const scope = signalScope(caller, resolved, clock);
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
      const fail = (stop: RetryStop): RetryOutcome<T> =>
        giveUp({ result: { ok: false, error }, retries, verdict, stop }, retries + 1);
      if (caller?.aborted) return fail("aborted");
      if (scope.signal.aborted) return fail("deadline");
      if (!verdict.retryable) return fail("notRetryable");
      if (retries >= policy.maxRetries) return fail("exhausted");
      const hint = verdict.retryAfterMs;
      const hinted = hint !== undefined && Number.isFinite(hint) && hint >= 0;
      const waitMs = hinted ? hint + hint * HINT_SPREAD * random() : policy.backoff.delay(retries, random);
      if (resolved.atMs !== undefined && clock.now() + waitMs >= resolved.atMs) return fail("deadline");
      if (waitMs > longest) return fail("waitTooLong");
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
