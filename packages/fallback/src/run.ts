import { type Clock, type Deadline, resolveDeadline, signalScope, systemClock } from "@resil/retry";
import { ChainOutcome, type EndpointError, type Hop, type HopRecord } from "./hop.js";

/** Runs one hop, its own retries included; `signal` aborts on the caller's abort or the chain's deadline. */
export type Attempt<T, E = unknown> = (
  endpoint: string,
  index: number,
  signal: AbortSignal,
) => Hop<T, E> | PromiseLike<Hop<T, E>>;

/** Emitted after each hop. */
export interface HopEvent<T, E = unknown> extends HopRecord<T, E> {
  index: number;
  /** Clock time when the hop ended, ms. */
  at: number;
}

export interface RunOptions<T, E = unknown> {
  /** Default `systemClock`; an absolute deadline is on its timeline. */
  clock?: Clock;
  /** Stops the chain before its next hop; attempts receive a signal that follows it. */
  signal?: AbortSignal;
  /** Called after each hop. A throwing hook is ignored. */
  onHop?: (event: HopEvent<T, E>) => void;
}

/**
 * Tries `candidates` in order until one serves, a failure the `trigger` rejects surfaces, the list ends,
 * or the deadline passes (checked before each hop and after a failed one; a running hop is never
 * interrupted by `run`). `deadline`: `{ budgetMs }`, an AbortSignal, or a clock time (`deadlineIn`);
 * a value on another timeline rejects with `InvalidDeadlineError`.
 * Never rejects: an `attempt` that throws fails its hop with that error; a `trigger` that throws
 * surfaces the hop's error (a broken trigger must not send the request to every other upstream).
 */
export async function run<T, E = unknown>(
  candidates: readonly string[],
  deadline: Deadline | undefined,
  attempt: Attempt<T, E>,
  trigger: (error: E) => boolean,
  options: RunOptions<T, E> = {},
): Promise<ChainOutcome<T, E>> {
  const clock = options.clock ?? systemClock;
  const caller = options.signal;
  const hops: HopRecord<T, E>[] = [];
  let first: EndpointError<E> | undefined;
  let last: EndpointError<E> | undefined;
  let allRateLimited = true;
  let rateLimitedMs: number | undefined;
  const resolved = resolveDeadline(deadline, clock);
  const deadlineMs = resolved.atMs;
  const timeUp = () =>
    (deadlineMs !== undefined && clock.now() >= deadlineMs) || resolved.signal?.aborted === true;
  const scope = signalScope(caller, resolved, clock);
  try {
    for (const [index, endpoint] of candidates.entries()) {
      if (caller?.aborted) {
        return new ChainOutcome<T, E>({ ok: false, error: { kind: "aborted", reason: caller.reason } }, hops);
      }
      if (timeUp()) {
        if (hops.length === 0)
          return new ChainOutcome<T, E>({ ok: false, error: { kind: "deadlineExceeded" } }, hops);
        break;
      }
      const hop = await attemptSafely(attempt, endpoint, index, scope.signal);
      hops.push({ endpoint, hop });
      try {
        options.onHop?.({ endpoint, hop, index, at: clock.now() });
      } catch {
        // observability must not change the outcome
      }
      if (hop.kind === "served")
        return new ChainOutcome<T, E>({ ok: true, endpoint, value: hop.value }, hops);
      if (hop.kind === "skipped") {
        if (hop.skip.kind === "rateLimited") {
          rateLimitedMs = Math.min(rateLimitedMs ?? Number.POSITIVE_INFINITY, hop.skip.retryAfterMs);
        } else {
          allRateLimited = false;
        }
        continue;
      }
      allRateLimited = false;
      // a hop cut by the deadline ends the chain as exhausted: its error is the deadline's, not the upstream's
      const late = timeUp() && !caller?.aborted;
      if (!late && !triggers(trigger, hop.error)) {
        return new ChainOutcome<T, E>(
          { ok: false, error: { kind: "surfaced", endpoint, error: hop.error } },
          hops,
        );
      }
      if (first === undefined) first = { endpoint, error: hop.error };
      else last = { endpoint, error: hop.error };
      if (late) break;
    }
  } finally {
    scope.dispose();
  }
  const error = {
    kind: "exhausted" as const,
    ...(first && { first }),
    ...(last && { last }),
    ...(allRateLimited && rateLimitedMs !== undefined && { rateLimitedMs }),
  };
  return new ChainOutcome<T, E>({ ok: false, error }, hops);
}

async function attemptSafely<T, E>(
  attempt: Attempt<T, E>,
  endpoint: string,
  index: number,
  signal: AbortSignal,
): Promise<Hop<T, E>> {
  try {
    return await attempt(endpoint, index, signal);
  } catch (error) {
    return { kind: "failed", error: error as E };
  }
}

function triggers<E>(trigger: (error: E) => boolean, error: E): boolean {
  try {
    return trigger(error);
  } catch {
    return false;
  }
}
