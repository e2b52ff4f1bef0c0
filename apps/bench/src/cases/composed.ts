import { TwoTier } from "@resil/breaker";
import { ResilientCaller } from "@resil/fallback";
import { RetryPolicy } from "@resil/retry";
import {
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleAll,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from "cockatiel";
import CircuitBreaker from "opossum";
import { measure, measureOptions, statsRow, type Variant } from "../harness.js";
import type { BenchCase, Row } from "../types.js";

// The protected call: an async function that does no work, so what is left is the wrapper's cost.
async function call(): Promise<number> {
  return 1;
}

function loop(id: string, label: string, once: () => Promise<number>, note?: string): Variant {
  const v: Variant = {
    id,
    label,
    async chunk(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await once();
      return sum;
    },
  };
  if (note) v.note = note;
  return v;
}

/** A closed breaker, 2 retries, a 10 s per-attempt timeout: the same guards in every variant. */
function resil(withDeadline: boolean): Variant {
  const caller = new ResilientCaller({
    breakers: new TwoTier(),
    retryPolicy: RetryPolicy.interactive({ numRetries: 2, maxDelayS: 1 }),
    attemptTimeoutMs: 10_000,
  });
  const candidates = ["gpt-4o"];
  const request = withDeadline ? { deadline: { budgetMs: 30_000 } } : {};
  return loop(
    withDeadline ? "resil-composed-deadline" : "resil-composed",
    withDeadline
      ? "resil ResilientCaller.call, plus a 30 s call deadline"
      : "resil ResilientCaller.call (breakers, retry, attempt timeout)",
    async () => {
      const report = await caller.call(candidates, call, request);
      return report.result.ok ? report.result.value : 0;
    },
    "one candidate; a report of hops and attempts per call",
  );
}

function cockatiel(): Variant {
  const policy = wrap(
    retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
    timeout(10_000, TimeoutStrategy.Cooperative),
  );
  return loop("cockatiel-wrap", "cockatiel wrap(retry, circuitBreaker, timeout).execute", () =>
    policy.execute(call),
  );
}

/** Per-call overhead over the bare await, from paired samples (they ran interleaved). */
function overhead(row: Row, base: Row): Row {
  if (!row.available || !row.values || !base.values) return row;
  const diffs = row.values.map((v, i) => v - (base.values![i] ?? base.median!));
  return statsRow(row.id, row.label, "ns overhead", diffs, row.note);
}

export const composed: BenchCase = {
  name: "composed",
  title: "Composed call",
  description:
    "per-call overhead of breaker + retry + per-attempt timeout around an async call that does nothing, over a bare await",
  async run(opts) {
    const breaker = new CircuitBreaker(call, { timeout: 10_000 });
    try {
      const rows = await measure(
        [
          loop("bare", "bare await of an async call", call),
          resil(false),
          resil(true),
          cockatiel(),
          loop(
            "opossum",
            "opossum fire (breaker + 10 s timeout)",
            () => breaker.fire(),
            "no retry in opossum",
          ),
        ],
        measureOptions(opts),
      );
      const base = rows[0]!;
      return [base, ...rows.slice(1).map((r) => overhead(r, base))];
    } finally {
      breaker.shutdown();
    }
  },
};
