import type { Row, RunOptions } from "./types.js";

/** One implementation in a scenario. `chunk(n)` runs n operations and returns a checksum (keeps the JIT honest). */
export interface Variant {
  id: string;
  label: string;
  chunk(n: number): number | Promise<number>;
  note?: string;
}

/** A variant that cannot run (its resil part is missing, no redis-server, ...): a row without numbers. */
export interface Unavailable {
  id: string;
  label: string;
  unavailable: string;
}

export interface MeasureOptions {
  /** Warm-up per variant, ms (full mode). */
  warmupMs: number;
  /** Samples per variant. */
  samples: number;
  /** Target length of one sample, ms (full mode). */
  sampleMs: number;
  /** Smoke mode: fixed small operation counts instead of timed targets. */
  smoke: boolean;
}

/** Spread (interquartile range over the median, %) above which a row is flagged "wide". */
export const WIDE_SPREAD_PCT = 15;

export function measureOptions(run: RunOptions, overrides: Partial<MeasureOptions> = {}): MeasureOptions {
  const base = run.smoke
    ? { warmupMs: 0, samples: 3, sampleMs: 0, smoke: true }
    : { warmupMs: 300, samples: 9, sampleMs: 120, smoke: false };
  return { ...base, ...overrides, smoke: run.smoke };
}

const SMOKE_WARMUP_OPS = 500;
const SMOKE_SAMPLE_OPS = 2000;
// A chunk lasts about this long; between chunks the event loop runs (I/O replies, background sync rounds).
const CHUNK_MS = 2;

let sink = 0;

/** Lets timers and I/O callbacks run, as a real server's event loop would between requests. */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

async function runOps(v: Variant, ops: number, chunkOps: number): Promise<number> {
  const start = process.hrtime.bigint();
  let done = 0;
  while (done < ops) {
    const n = Math.min(chunkOps, ops - done);
    const r = v.chunk(n);
    sink += typeof r === "number" ? r : await r;
    done += n;
    await macrotask();
  }
  return Number(process.hrtime.bigint() - start);
}

interface Plan {
  variant: Variant;
  chunkOps: number;
  sampleOps: number;
  ns: number[];
}

/** Warm-up, calibration, then samples interleaved across variants (drift from a noisy host hits all alike). */
export async function measure(
  variants: ReadonlyArray<Variant | Unavailable>,
  opts: MeasureOptions,
): Promise<Row[]> {
  const plans = new Map<string, Plan>();
  for (const v of variants) {
    if ("unavailable" in v) continue;
    plans.set(v.id, await plan(v, opts));
  }
  const order = [...plans.values()];
  for (let s = 0; s < opts.samples; s++) {
    // Each round starts at a different variant: the first slot of a round runs measurably slower.
    for (let i = 0; i < order.length; i++) {
      const p = order[(i + s) % order.length]!;
      collectGarbage();
      const ns = await runOps(p.variant, p.sampleOps, p.chunkOps);
      p.ns.push(ns / p.sampleOps);
    }
  }
  if (sink === Number.MIN_VALUE) console.log("sink", sink); // never true: keeps `sink` observable
  return variants.map((v) => {
    if ("unavailable" in v) return unavailableRow(v.id, v.label, "ns/op", v.unavailable);
    const p = plans.get(v.id)!;
    return statsRow(v.id, v.label, "ns/op", p.ns, v.note);
  });
}

async function plan(v: Variant, opts: MeasureOptions): Promise<Plan> {
  if (opts.smoke) {
    await runOps(v, SMOKE_WARMUP_OPS, 256);
    return { variant: v, chunkOps: 256, sampleOps: SMOKE_SAMPLE_OPS, ns: [] };
  }
  // Grow the chunk until it lasts about CHUNK_MS, warming up on the way. Each size is timed three
  // times and the fastest counts: one stall (a GC, the scheduler) must not stop the growth at a
  // chunk so small that the macrotask between chunks is most of what a sample measures.
  let chunkOps = 16;
  for (;;) {
    let ns = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) ns = Math.min(ns, await runOps(v, chunkOps, chunkOps));
    if (ns >= CHUNK_MS * 1e6 || chunkOps >= 1 << 20) break;
    chunkOps *= 2;
  }
  const warmEnd = performance.now() + opts.warmupMs;
  let warmOps = 0;
  let warmNs = 0;
  while (performance.now() < warmEnd || warmOps === 0) {
    warmNs += await runOps(v, chunkOps, chunkOps);
    warmOps += chunkOps;
  }
  const perOp = warmNs / warmOps;
  const sampleOps = Math.max(chunkOps, Math.round((opts.sampleMs * 1e6) / perOp));
  return { variant: v, chunkOps, sampleOps, ns: [] };
}

/** The q-quantile (0..1) with linear interpolation between the sorted samples. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** A row from raw samples: median, min, max, spread, and the wide-spread flag. */
export function statsRow(
  id: string,
  label: string,
  unit: Row["unit"],
  values: readonly number[],
  note?: string,
): Row {
  const med = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  // Interquartile range: one GC pause or a neighbour's burst in one sample does not make a row "wide".
  const spreadPct = med > 0 ? ((quantile(values, 0.75) - quantile(values, 0.25)) / Math.abs(med)) * 100 : 0;
  const row: Row = {
    id,
    label,
    unit,
    median: med,
    min,
    max,
    samples: values.length,
    spreadPct,
    wide: spreadPct > WIDE_SPREAD_PCT,
    available: true,
    values: [...values],
  };
  if (note) row.note = note;
  return row;
}

export function unavailableRow(id: string, label: string, unit: Row["unit"], reason: string): Row {
  return {
    id,
    label,
    unit,
    median: null,
    min: null,
    max: null,
    samples: 0,
    spreadPct: null,
    wide: false,
    available: false,
    note: `not available: ${reason}`,
  };
}
