import { TwoTier } from "@resil/breaker";
import { ConsecutiveBreaker, circuitBreaker, handleAll } from "cockatiel";
import CircuitBreaker from "opossum";
import { measure, measureOptions, statsRow, type Variant } from "../harness.js";
import type { BenchCase, Row } from "../types.js";

// The protected call: an async function that does no work, so what is left is the wrapper's cost.
async function call(): Promise<number> {
  return 1;
}

function bare(): Variant {
  return {
    id: "bare",
    label: "bare await of an async call",
    async chunk(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await call();
      return sum;
    },
  };
}

function resil(): Variant {
  const breakers = new TwoTier();
  return {
    id: "resil-twotier",
    label: "resil TwoTier.check + recordSuccess",
    async chunk(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        if (!breakers.check("gpt-4o@eastus", "azure:eastus.api").allowed) continue;
        sum += await call();
        breakers.recordSuccess("gpt-4o@eastus", "azure:eastus.api");
      }
      return sum;
    },
  };
}

function opossum(breaker: CircuitBreaker<[], number>, id: string, label: string, note?: string): Variant {
  const v: Variant = {
    id,
    label,
    async chunk(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await breaker.fire();
      return sum;
    },
  };
  if (note) v.note = note;
  return v;
}

function cockatiel(): Variant {
  const policy = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
  return {
    id: "cockatiel",
    label: "cockatiel circuitBreaker.execute",
    async chunk(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await policy.execute(call);
      return sum;
    },
  };
}

/** Per-call overhead over the bare await, from paired samples (they ran interleaved). */
function overhead(row: Row, base: Row): Row {
  if (!row.available || !row.values || !base.values) return row;
  const diffs = row.values.map((v, i) => v - (base.values![i] ?? base.median!));
  return statsRow(row.id, row.label, "ns overhead", diffs, row.note);
}

export const breakers: BenchCase = {
  name: "breakers",
  title: "Circuit breakers",
  description:
    "per-call overhead of a closed breaker around an async call that does nothing, over a bare await",
  async run(opts) {
    const withTimer = new CircuitBreaker(call);
    const noTimer = new CircuitBreaker(call, { timeout: false });
    try {
      const rows = await measure(
        [
          bare(),
          resil(),
          opossum(withTimer, "opossum", "opossum fire", "default options: a 10 s timeout timer per call"),
          opossum(noTimer, "opossum-no-timeout", "opossum fire, timeout: false"),
          cockatiel(),
        ],
        measureOptions(opts),
      );
      const base = rows[0]!;
      return [base, ...rows.slice(1).map((r) => overhead(r, base))];
    } finally {
      withTimer.shutdown();
      noTimer.shutdown();
    }
  },
};
