import type { BreakerCheck, TwoTier } from "@resil/breaker";
import { classify as classifyFailure, failureFrom, type Verdict } from "@resil/classify";
import {
  type Clock,
  type Deadline,
  RetryPolicy,
  resolveDeadline,
  type SignalScope,
  signalScope,
  systemClock,
} from "@resil/retry";
import { type CutHook, guardAttempt } from "./attempt-timer.js";
import {
  type AttemptReport,
  CallCounters,
  type CallEvent,
  type CallMetrics,
  type CallReport,
  type HopReport,
  type HopStop,
} from "./call-report.js";
import { denialWaitMs, type RateDecision } from "./guarded-attempt.js";
import type { ChainResult } from "./hop.js";

/** A concurrency slot answer (structurally @resil/limit's `AcquireResult`; `retryAfter` in seconds). */
export type SlotDecision =
  | { kind: "unlimited" }
  | { kind: "acquired"; slot: { release(): void } }
  | { kind: "denied"; max: number; retryAfter: number };

/** A rate check and an optional slot (a @resil/limit `Limiter` fits as it is). */
export interface LimiterLike {
  check(subject: string, cost?: number): Promise<RateDecision>;
  acquire?(subject: string): Promise<SlotDecision>;
}

/** The parts of `TwoTier` the composed call uses. */
export type CallBreakers = Pick<TwoTier, "check" | "release" | "recordSuccess" | "recordFailure">;

export interface ResilientCallerOptions {
  /** Per-target and per-provider breakers, checked before each hop and fed every attempt's outcome. */
  breakers?: CallBreakers;
  /** The provider key of an endpoint. Default: the endpoint itself. */
  vendorOf?: (endpoint: string) => string;
  /** One rate check (and a slot, with `acquire`) per hop. */
  limiter?: LimiterLike;
  /** The limiter subject of an endpoint. Default: the endpoint itself. */
  subjectOf?: (endpoint: string) => string;
  /** A reason to skip an endpoint, or undefined to try it. */
  ineligible?: (endpoint: string) => string | undefined;
  /** Retries within one hop. Default `RetryPolicy.none()`. */
  retryPolicy?: RetryPolicy | ((endpoint: string) => RetryPolicy);
  /** Each attempt's own time limit, ms; a hung attempt is abandoned then. Default: none. */
  attemptTimeoutMs?: number;
  /** A wait longer than this (a delay hint) fails over to the next hop instead. Default 1000 ms. */
  failoverAfterMs?: number;
  /** Failure to verdict. Default `classify(failureFrom(error))`. */
  classify?: (error: unknown) => Verdict;
  /** Whether a failed hop moves on to the next one. Default: `verdict.failover`. */
  trigger?: (error: unknown, verdict: Verdict) => boolean;
  /** Default `systemClock`. */
  clock?: Clock;
  /** U[0,1) for jitter. Default `Math.random`. */
  random?: () => number;
  /** Every attempt and hop as it ends. A throwing listener is ignored. */
  onEvent?: (event: CallEvent) => void;
}

/** Per request: the time budget, the caller's cancellation, and the limiter cost. */
export interface CallRequest {
  /** `{ budgetMs }`, an AbortSignal (`AbortSignal.timeout(ms)`) or a clock time (`deadlineIn`). */
  deadline?: Deadline;
  signal?: AbortSignal;
  /** Units the limiter charges. Default 1. */
  cost?: number;
}

/** The request itself, sent to one endpoint; throw (or reject) on failure. */
export type Send<T> = (
  endpoint: string,
  signal: AbortSignal,
  at: { hop: number; attempt: number },
) => T | PromiseLike<T>;

const HINT_SPREAD = 0.1;
const DEFAULT_FAILOVER_AFTER_MS = 1000;
const defaultClassify = (error: unknown) => classifyFailure(failureFrom(error));
const identity = (e: string) => e;

/**
 * One call through fallback candidates, each hop guarded by eligibility, breakers and a limiter,
 * retried under a policy with a per-attempt timeout, failing over first when an upstream asks for a
 * long wait, under one deadline and one AbortSignal; the report lists every hop and attempt.
 */
export class ResilientCaller {
  private readonly options: ResilientCallerOptions;
  private readonly clock: Clock;
  private readonly counters = new CallCounters();

  constructor(options: ResilientCallerOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  /** Never rejects for an upstream's failure; rejects with `InvalidDeadlineError` for a bad deadline. */
  async call<T>(
    candidates: readonly string[],
    send: Send<T>,
    request: CallRequest = {},
  ): Promise<CallReport<T>> {
    const clock = this.clock;
    const started = clock.now();
    const deadline = resolveDeadline(request.deadline, clock);
    const caller = request.signal;
    // a scope (two controllers and a timer) only when something can cut the call
    const hook: CutHook = { cut: undefined };
    const scope =
      caller || deadline.atMs !== undefined || deadline.signal
        ? signalScope(caller, deadline, clock, (reason) => hook.cut?.(reason))
        : undefined;
    const hops: HopReport[] = [];
    try {
      const result = await this.chain(candidates, send, request, hops, scope, hook);
      this.counters.bump(this.counters.calls, result.ok ? "served" : result.error.kind);
      if (result.ok && hops[0] && hops[0].endpoint !== result.endpoint) this.counters.fallbacks++;
      return { result, hops, elapsedMs: clock.now() - started };
    } finally {
      scope?.dispose();
    }
  }

  /** Counters since construction. */
  metrics(): CallMetrics {
    return this.counters.snapshot();
  }

  private async chain<T>(
    candidates: readonly string[],
    send: Send<T>,
    request: CallRequest,
    hops: HopReport[],
    scope: SignalScope | undefined,
    hook: CutHook,
  ): Promise<ChainResult<T, unknown>> {
    const { trigger } = this.options;
    let first: { endpoint: string; error: unknown } | undefined;
    let last: { endpoint: string; error: unknown } | undefined;
    let rateLimitedMs: number | undefined;
    let allRateLimited = true;
    for (let index = 0; index < candidates.length; index++) {
      const stopped = this.stopped(request, scope);
      if (stopped) return stopped;
      const endpoint = candidates[index]!;
      const isLast = index === candidates.length - 1;
      const { hop, value, error, verdict } = await this.hop(
        endpoint,
        index,
        isLast,
        send,
        request,
        scope,
        hook,
      );
      hops.push(hop);
      this.counters.bump(this.counters.hops, hop.skip?.kind ?? hop.outcome);
      if (this.options.onEvent) this.emit({ type: "hop", ...hop });
      if (hop.outcome === "served") return { ok: true, endpoint, value: value as T };
      if (hop.outcome === "skipped") {
        if (hop.skip?.kind === "rateLimited")
          rateLimitedMs = Math.min(rateLimitedMs ?? Infinity, hop.skip.retryAfterMs);
        else allRateLimited = false;
        continue;
      }
      allRateLimited = false;
      if (hop.stop === "aborted") {
        const cut = this.stopped(request, scope);
        if (cut) return cut;
      }
      let moveOn: boolean;
      try {
        moveOn = trigger ? trigger(error, verdict!) : verdict!.failover;
      } catch {
        moveOn = false;
      }
      if (!moveOn) return { ok: false, error: { kind: "surfaced", endpoint, error } };
      if (first === undefined) first = { endpoint, error };
      else last = { endpoint, error };
    }
    const stopped = this.stopped(request, scope);
    if (stopped && hops.length > 0 && stopped.error.kind === "deadlineExceeded") return stopped;
    return {
      ok: false,
      error: {
        kind: "exhausted",
        ...(first && { first }),
        ...(last && { last }),
        ...(allRateLimited && rateLimitedMs !== undefined && { rateLimitedMs }),
      },
    };
  }

  private stopped(request: CallRequest, scope: SignalScope | undefined): Stopped | undefined {
    if (!scope?.signal.aborted) return undefined;
    if (request.signal?.aborted)
      return { ok: false, error: { kind: "aborted", reason: request.signal.reason } };
    return { ok: false, error: { kind: "deadlineExceeded" } };
  }

  private async hop<T>(
    endpoint: string,
    index: number,
    isLast: boolean,
    send: Send<T>,
    request: CallRequest,
    scope: SignalScope | undefined,
    hook: CutHook,
  ): Promise<{ hop: HopReport; value?: T; error?: unknown; verdict?: Verdict }> {
    const o = this.options;
    const hop: HopReport = { endpoint, index, outcome: "skipped", attempts: [] };
    const breakers = o.breakers;
    let vendor: string;
    let gate: BreakerCheck | undefined;
    try {
      const reason = o.ineligible?.(endpoint);
      if (reason !== undefined) return { hop: { ...hop, skip: { kind: "ineligible", reason } } };
      vendor = o.vendorOf ? o.vendorOf(endpoint) : endpoint;
      gate = breakers?.check(endpoint, vendor);
    } catch (error) {
      return this.failedGate(hop, error);
    }
    if (gate && !gate.allowed)
      return { hop: { ...hop, skip: { kind: "breakerOpen", retryInMs: gate.retryInMs } } };
    const giveBack = () => breakers && gate && breakers.release(endpoint, vendor, gate);
    let slot: { release(): void } | undefined;
    if (o.limiter) {
      try {
        const subject = (o.subjectOf ?? identity)(endpoint);
        const decision = await o.limiter.check(subject, request.cost ?? 1);
        if (decision.kind === "deny") {
          giveBack();
          return {
            hop: {
              ...hop,
              skip: { kind: "rateLimited", retryAfterMs: denialWaitMs(decision.headers, Date.now()) },
            },
          };
        }
        const taken = await o.limiter.acquire?.(subject);
        if (taken?.kind === "denied") {
          giveBack();
          return { hop: { ...hop, skip: { kind: "rateLimited", retryAfterMs: taken.retryAfter * 1000 } } };
        }
        if (taken?.kind === "acquired") slot = taken.slot;
      } catch (error) {
        giveBack();
        return this.failedGate(hop, error);
      }
    }
    try {
      return await this.attempts(hop, vendor, isLast, send, scope, hook, gate);
    } finally {
      slot?.release();
    }
  }

  private failedGate(hop: HopReport, error: unknown) {
    return {
      hop: { ...hop, outcome: "failed" as const, stop: "notRetryable" as const },
      error,
      verdict: this.verdictOf(error),
    };
  }

  private verdictOf(error: unknown): Verdict {
    try {
      return (this.options.classify ?? defaultClassify)(error);
    } catch {
      return defaultClassify(error);
    }
  }

  private async attempts<T>(
    hop: HopReport,
    vendor: string,
    isLast: boolean,
    send: Send<T>,
    scope: SignalScope | undefined,
    hook: CutHook,
    gate: BreakerCheck | undefined,
  ): Promise<{ hop: HopReport; value?: T; error?: unknown; verdict?: Verdict }> {
    const o = this.options;
    const clock = this.clock;
    const { endpoint, index } = hop;
    const policy =
      typeof o.retryPolicy === "function" ? o.retryPolicy(endpoint) : (o.retryPolicy ?? NO_RETRIES);
    const longest = isLast ? Infinity : (o.failoverAfterMs ?? DEFAULT_FAILOVER_AFTER_MS);
    const atMs = scope?.deadline.atMs;
    const random = o.random ?? Math.random;
    const breakers = o.breakers;
    for (let n = 0; ; n++) {
      const startedAt = clock.now();
      const report: AttemptReport = { attempt: n, startedAt, durationMs: 0, ok: false, timedOut: false };
      hop.attempts.push(report);
      let value: T | undefined;
      let error: unknown;
      let ok = false;
      try {
        value = await guardAttempt(
          (signal) => send(endpoint, signal, { hop: index, attempt: n }),
          scope?.signal,
          hook,
          o.attemptTimeoutMs,
          clock,
        );
        ok = true;
      } catch (caught) {
        error = caught;
      }
      report.durationMs = clock.now() - startedAt;
      if (ok) {
        report.ok = true;
        this.counters.attemptsOk++;
        if (breakers) quietly(() => breakers.recordSuccess(endpoint, vendor));
        if (o.onEvent) this.emit({ type: "attempt", endpoint, hop: index, ...report });
        return { hop: { ...hop, outcome: "served" }, value };
      }
      report.error = error;
      const cut = scope?.signal.aborted === true;
      if (cut) {
        // neither the caller's abort nor the deadline says anything about the upstream
        if (breakers && n === 0 && gate) quietly(() => breakers.release(endpoint, vendor, gate));
        this.counters.attemptsFailed++;
        if (o.onEvent) this.emit({ type: "attempt", endpoint, hop: index, ...report });
        return { hop: { ...hop, outcome: "failed", stop: "aborted" }, error, verdict: this.verdictOf(error) };
      }
      const verdict = this.verdictOf(error);
      report.verdict = verdict;
      report.timedOut = (error as { name?: unknown } | null)?.name === "AttemptTimeoutError";
      if (report.timedOut) this.counters.attemptsTimedOut++;
      else this.counters.attemptsFailed++;
      if (breakers) quietly(() => breakers.recordFailure(endpoint, vendor, verdict));
      const fail = (stop: HopStop) => {
        if (o.onEvent) this.emit({ type: "attempt", endpoint, hop: index, ...report });
        return { hop: { ...hop, outcome: "failed" as const, stop }, error, verdict };
      };
      if (!verdict.retryable) return fail("notRetryable");
      if (n >= policy.maxRetries) return fail("exhausted");
      const hint = verdict.retryAfterMs;
      const hinted = hint !== undefined && Number.isFinite(hint) && hint >= 0;
      const waitMs = hinted ? hint + hint * HINT_SPREAD * random() : policy.backoff.delay(n, random);
      if (waitMs > longest) return fail("failoverFirst");
      if (atMs !== undefined && clock.now() + waitMs >= atMs) return fail("deadline");
      report.waitMs = waitMs;
      if (o.onEvent) this.emit({ type: "attempt", endpoint, hop: index, ...report });
      this.counters.retries++;
      if (waitMs > 0) await clock.sleep(waitMs, scope?.signal).catch(() => {});
      if (scope?.signal.aborted)
        return { hop: { ...hop, outcome: "failed", stop: "aborted" }, error, verdict };
    }
  }

  private emit(event: CallEvent): void {
    if (!this.options.onEvent) return;
    try {
      this.options.onEvent(event);
    } catch {
      // observability must not change the outcome
    }
  }
}

const NO_RETRIES = RetryPolicy.none();

type Stopped = Extract<ChainResult<never, unknown>, { ok: false }>;

/** Breaker bookkeeping never changes a hop's outcome. */
function quietly(update: () => void): void {
  try {
    update();
  } catch {
    // a throwing breaker must not turn a served hop into a failure, or hide the call's error
  }
}
