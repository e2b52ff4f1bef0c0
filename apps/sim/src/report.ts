import type { CrashReport, RawRun } from "./engine.js";
import { type TuningOverride, tuningOverrides } from "./library-defaults.js";
import { OUTCOMES, type Outcome } from "./replica.js";
import { primaryLimit, type Scenario, toleranceUnits, WINDOW_MS, windowBound } from "./scenario.js";

/** One row of the table: a window of the shortest limit. Units are cost units. */
export interface WindowRow {
  index: number;
  /** Window start, simulated seconds. */
  startS: number;
  offered: number;
  admitted: number;
  denied: number;
  limit: number;
  /** Units admitted above what the window allows (0 when the limit held). */
  over: number;
  /** Admitted per replica, in pod order. */
  perReplica: number[];
  /** Extra charge settled in the window (`settle`): the debt bound lets the window go this far over. */
  extra?: number;
  /** Most concurrency slots held at once in the window (concurrency scenarios). */
  maxActive?: number;
}

export interface Summary {
  durationS: number;
  replicas: number;
  /** Live replicas at the end. */
  replicasAtEnd: number;
  offered: number;
  admitted: number;
  denied: number;
  requests: number;
  deniedRequests: number;
  /** Admitted / what could have been admitted (per window, the lesser of offered and the limit). */
  utilisation: number;
  /** Worst window: units above its bound, and that as a fraction of the bound. */
  maxOverAdmission: { units: number; fraction: number; window: string | null };
  /** Windows above their bound plus the tolerance. */
  windowsOver: number;
  /** Windows above their bound but within the tolerance (not counted as over). */
  windowsWithinTolerance: number;
  windowsChecked: number;
  /** The tolerance of the shortest window, in units (the scenario's `tolerance` says how it was given). */
  toleranceUnits: number;
  /** Limiter options the scenario sets to something other than the library's default. */
  tuningOverrides: TuningOverride[];
  starvedReplicas: number;
  storeCallsPerSecond: number;
  storeFailures: number;
  overruns: number;
  failStaticAdmits: number;
  /** Units pushed to the store on the first good round after failures (repaid as debt). */
  paidBack: number;
  outcomes: Record<Outcome, number>;
  concurrency: { max: number; maxActive: number; slotDenials: number } | null;
  crashes: CrashReport[];
  /** No window of any limit went over its bound plus the tolerance. */
  limitHeld: boolean;
  /** Per cost class: its share of the units offered and of the units admitted, and admitted / offered. */
  costClasses: CostClassSummary[];
  /** Units of extra charge settled over the run (`settle`; 0 without). */
  settledExtra: number;
  /** `--wait`: requests admitted after waiting, the longest such wait (ms), and waits that timed out. */
  waits: { maxWaitMs: number; admitted: number; longestMs: number; timedOut: number } | null;
}

export interface CostClassSummary {
  cost: number;
  offeredShare: number;
  admittedShare: number;
  /** Admitted / offered units of this class. */
  admittedRatio: number;
}

/** Everything a run prints, and the `--json` document. */
export interface Report {
  scenario: Scenario;
  pods: string[];
  windowMs: number;
  windows: WindowRow[];
  summary: Summary;
}

export function buildReport(run: RawRun): Report {
  const s = run.scenario;
  const pods = run.pods.length;
  const stride = run.stride;
  const primary = primaryLimit(s);
  const bound = windowBound(s, primary);
  const windows: WindowRow[] = [];
  for (let w = 0; w < run.windowCount; w++) {
    const admitted = run.admitted[w]!;
    const row: WindowRow = {
      index: w,
      startS: (w * run.windowMs) / 1000,
      offered: run.offered[w]!,
      admitted,
      denied: run.denied[w]!,
      limit: primary.limit,
      over: Math.max(0, admitted - bound - run.extra[w]!),
      perReplica: Array.from(run.admittedBy.subarray(w * stride, w * stride + pods)),
      extra: run.extra[w]!,
    };
    if (s.concurrency) row.maxActive = run.maxActive[w]!;
    windows.push(row);
  }
  return { scenario: s, pods: run.pods, windowMs: run.windowMs, windows, summary: summarize(run, windows) };
}

/**
 * What the limit could have admitted of what was offered: per window the lesser of the two. A token
 * bucket holds `limit + burst` in one window only when it starts full: an ideal bucket, refilled by
 * `limit` a window up to its burst, says how much each window could take. With `--wait`, a request
 * not admitted in its window may still be in the next one: what the previous window left counts too,
 * as far as it was offered within one wait of its end (taken as spread evenly over that window), so a
 * queue drained in an off period of bursty traffic is not read as more than the limit allowed.
 */
function possibleAdmits(s: Scenario, rows: readonly WindowRow[]): number {
  const { limit, window } = primaryLimit(s);
  const carryShare = s.wait ? Math.min(1, s.wait.maxWaitMs / WINDOW_MS[window]) : 0;
  const burst = s.algorithm === "token" ? (s.burst ?? limit) : 0;
  let saved = burst;
  let left = 0;
  let possible = 0;
  for (const r of rows) {
    const demand = r.offered + left;
    const took = Math.min(demand, saved + limit);
    possible += took;
    saved = Math.min(burst, saved + limit - took);
    left = Math.min(demand - took, r.offered * carryShare);
  }
  return possible;
}

function summarize(run: RawRun, rows: WindowRow[]): Summary {
  const s = run.scenario;
  const sum = (xs: ArrayLike<number>) => {
    let t = 0;
    for (let i = 0; i < xs.length; i++) t += xs[i]!;
    return t;
  };
  const offered = sum(run.offered);
  const admitted = sum(run.admitted);
  const possible = possibleAdmits(s, rows);

  // Every configured limit is checked on its own aligned windows, built from the table's rows.
  let windowsOver = 0;
  let windowsWithinTolerance = 0;
  let windowsChecked = 0;
  let worst = { units: 0, fraction: 0, window: null as string | null };
  for (const l of s.limits) {
    const per = Math.max(1, WINDOW_MS[l.window] / run.windowMs);
    const bound = windowBound(s, l);
    const tolerance = toleranceUnits(s, l);
    for (let start = 0; start < rows.length; start += per) {
      let got = 0;
      // settled extra charges may take a window past its bound by what they add (the debt bound)
      let extra = 0;
      for (let i = start; i < Math.min(rows.length, start + per); i++) {
        got += rows[i]!.admitted;
        extra += rows[i]!.extra ?? 0;
      }
      const allowed = bound + extra + tolerance;
      windowsChecked++;
      if (got > allowed) windowsOver++;
      else if (got > bound) windowsWithinTolerance++;
      if (got > bound + extra) {
        const units = got - bound - extra;
        if (units / bound > worst.fraction)
          worst = {
            units,
            fraction: units / bound,
            window: `${l.window} at ${(start * run.windowMs) / 1000}s`,
          };
      }
    }
  }

  const starved = starvedReplicas(run, offered > 0 ? admitted / offered : 1);
  let maxActive = 0;
  for (const r of rows) maxActive = Math.max(maxActive, r.maxActive ?? 0);
  const live = run.lifetimes.filter((l) => l.toMs >= Math.round(s.duration * 1000)).length;
  return {
    durationS: s.duration,
    replicas: s.replicas,
    replicasAtEnd: live,
    offered,
    admitted,
    denied: sum(run.denied),
    requests: run.requests,
    deniedRequests: run.deniedRequests,
    utilisation: possible > 0 ? admitted / possible : 1,
    maxOverAdmission: worst,
    windowsOver,
    windowsWithinTolerance,
    windowsChecked,
    toleranceUnits: toleranceUnits(s, primaryLimit(s)),
    tuningOverrides: tuningOverrides(s),
    starvedReplicas: starved,
    storeCallsPerSecond: run.storeCalls / s.duration,
    storeFailures: run.storeFailures,
    overruns: run.outcomes.allowOverrun,
    failStaticAdmits: run.outcomes.allowDegraded,
    paidBack: run.paidBack,
    outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, run.outcomes[o]])) as Record<Outcome, number>,
    concurrency: s.concurrency ? { max: s.concurrency.max, maxActive, slotDenials: run.slotDenials } : null,
    crashes: run.crashes,
    limitHeld: windowsOver === 0,
    costClasses: costClasses(run),
    settledExtra: sum(run.extra),
    waits: s.wait ? { maxWaitMs: s.wait.maxWaitMs, ...run.waits } : null,
  };
}

function costClasses(run: RawRun): CostClassSummary[] {
  const total = (xs: Float64Array) => xs.reduce((a, b) => a + b, 0);
  const offered = total(run.classOffered);
  const admitted = total(run.classAdmitted);
  return run.scenario.costs.map((c, i) => ({
    cost: c.cost,
    offeredShare: offered > 0 ? run.classOffered[i]! / offered : 0,
    admittedShare: admitted > 0 ? run.classAdmitted[i]! / admitted : 0,
    admittedRatio: run.classOffered[i]! > 0 ? run.classAdmitted[i]! / run.classOffered[i]! : 0,
  }));
}

/**
 * A replica is starved when, over the windows it lived through whole (first and last of the run
 * left out), its admitted/offered ratio is under half the cluster's.
 */
function starvedReplicas(run: RawRun, clusterRatio: number): number {
  let starved = 0;
  const pods = run.pods.length;
  for (let p = 0; p < pods; p++) {
    const life = run.lifetimes[p]!;
    let off = 0;
    let adm = 0;
    for (let w = 1; w < run.windowCount - 1; w++) {
      const from = w * run.windowMs;
      if (from < life.fromMs || from + run.windowMs > life.toMs) continue;
      off += run.offeredBy[w * run.stride + p]!;
      adm += run.admittedBy[w * run.stride + p]!;
    }
    if (off > 0 && adm / off < clusterRatio / 2) starved++;
  }
  return starved;
}
