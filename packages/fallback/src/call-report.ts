import type { Verdict } from "@resil/classify";
import type { ChainResult, Skip } from "./hop.js";

/** One attempt on one hop. */
export interface AttemptReport {
  /** 0-based within its hop. */
  attempt: number;
  /** Clock time the attempt started, ms. */
  startedAt: number;
  durationMs: number;
  ok: boolean;
  /** Cut by the per-attempt timeout (its error is an `AttemptTimeoutError`). */
  timedOut: boolean;
  error?: unknown;
  verdict?: Verdict;
  /** The wait before the next attempt, when there was one. */
  waitMs?: number;
}

/** Why a hop stopped retrying without a value. */
export type HopStop =
  | "notRetryable"
  | "exhausted"
  /** The next wait would have crossed the deadline. */
  | "deadline"
  /** The next wait (a delay hint) was longer than `failoverAfterMs`: the next hop is tried instead. */
  | "failoverFirst"
  /** The caller's signal or the deadline cut the hop. */
  | "aborted";

/** What one hop did: skipped before calling, served, or failed after its attempts. */
export interface HopReport {
  endpoint: string;
  index: number;
  outcome: "served" | "skipped" | "failed";
  skip?: Skip;
  stop?: HopStop;
  attempts: AttemptReport[];
}

/** A composed call's result, every hop and attempt, and its duration. */
export interface CallReport<T> {
  result: ChainResult<T, unknown>;
  hops: HopReport[];
  elapsedMs: number;
}

/** What `onEvent` receives: each attempt as it ends, then each hop as it ends. */
export type CallEvent =
  | ({ type: "attempt"; endpoint: string; hop: number } & AttemptReport)
  | ({ type: "hop" } & HopReport);

/** One exported sample (the same shape as @resil/limit's `MetricSample`). */
export interface MetricSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** A caller's counters at one moment. */
export interface CallMetrics {
  /** Unix ms the snapshot was taken. */
  at: number;
  /**
   * `resil_calls_total{result}` (served, surfaced, exhausted, deadlineExceeded, aborted),
   * `resil_call_fallbacks_total` (served by other than the first candidate),
   * `resil_call_hops_total{outcome}` (served, failed, and each skip kind),
   * `resil_call_attempts_total{outcome}` (ok, error, timeout), `resil_call_retries_total`.
   */
  samples: MetricSample[];
}

/** Running counters; the hot path increments numbers only. */
export class CallCounters {
  readonly calls = new Map<string, number>();
  readonly hops = new Map<string, number>();
  fallbacks = 0;
  attemptsOk = 0;
  attemptsFailed = 0;
  attemptsTimedOut = 0;
  retries = 0;

  bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  snapshot(): CallMetrics {
    const samples: MetricSample[] = [];
    for (const [result, value] of this.calls)
      samples.push({ name: "resil_calls_total", labels: { result }, value });
    samples.push({ name: "resil_call_fallbacks_total", labels: {}, value: this.fallbacks });
    for (const [outcome, value] of this.hops)
      samples.push({ name: "resil_call_hops_total", labels: { outcome }, value });
    const attempts = { ok: this.attemptsOk, error: this.attemptsFailed, timeout: this.attemptsTimedOut };
    for (const [outcome, value] of Object.entries(attempts))
      samples.push({ name: "resil_call_attempts_total", labels: { outcome }, value });
    samples.push({ name: "resil_call_retries_total", labels: {}, value: this.retries });
    return { at: Date.now(), samples };
  }
}
