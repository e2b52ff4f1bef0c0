import type {
  AlgorithmCode,
  ConcurrencyRequest,
  RateRequest,
  RoundReply,
  RoundRequest,
  Store,
  WindowSpec,
} from "@resil/limit";

/**
 * The parity test of @resil/limit docs/protocol.md#s5: the same seeded random rounds sent to a
 * reference store (MemoryStore) and a store under test (RedisStore over some RedisExec), every reply
 * field compared. Written once here; each adapter package runs it through its own client.
 */

/** A small seeded generator (mulberry32), so a failing case can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ParityOptions {
  /** The reference store (a fresh MemoryStore). */
  oracle: Store;
  /** The store under test (a RedisStore). */
  subject: Store;
  seed: number;
  /** Number of cases (default 60); the algorithm is case mod 3. */
  cases?: number;
  /** Rounds per case (default 80). */
  steps?: number;
  /**
   * Store keys of a case: a rate key, a concurrency key and a registry key. Default: plain keys under
   * a random run prefix, so reruns against one server never meet old state.
   */
  keys?: (caseIndex: number) => { rate: string; concurrency: string; registry: string };
}

export interface ParityMismatch {
  caseIndex: number;
  step: number;
  field: string;
  expected: number;
  actual: number;
}

export interface ParityReport {
  rounds: number;
  /** Fields compared in total. */
  compared: number;
  mismatches: ParityMismatch[];
}

const PODS = ["p1", "p2", "p3"] as const;
const ALLOWANCES = [0.1, 0.5, 0.8, 1.0] as const;

function defaultKeys(run: string): (c: number) => { rate: string; concurrency: string; registry: string } {
  return (c) => ({
    rate: `rl2:{parity-${run}:s${c}}:00000000000000${String(c % 100).padStart(2, "0")}`,
    concurrency: `cc2:{parity-${run}:s${c}}:${c}`,
    registry: `rl2:{parity-${run}-${c}}:pods`,
  });
}

/** Runs the randomised comparison and returns every mismatch (an empty list is parity). */
export async function runParity(opts: ParityOptions): Promise<ParityReport> {
  const rnd = seededRandom(opts.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const cases = opts.cases ?? 60;
  const steps = opts.steps ?? 80;
  const keysOf = opts.keys ?? defaultKeys(Math.floor(Math.random() * 1e9).toString(36));
  const report: ParityReport = { rounds: 0, compared: 0, mismatches: [] };

  for (let c = 0; c < cases; c++) {
    const alg = (c % 3) as AlgorithmCode;
    const perSecond = int(1, 49);
    const burst = alg === 2 ? int(1, perSecond) : perSecond;
    const windows: WindowSpec[] = [{ limit: perSecond, windowMs: 1000, burst }];
    if (rnd() < 0.5) {
      const perMinute = int(10, 499);
      windows.push({ limit: perMinute, windowMs: 60_000, burst: alg === 2 ? burst : perMinute });
    }
    const max = int(1, 19);
    const keys = keysOf(c);
    let now = 1.75e12 + rnd() * 1e6;
    const pushTotals = new Map<string, number>();
    let lastWindows: RoundReply["rates"][number]["windows"] | undefined;

    for (let s = 0; s < steps; s++) {
      now += rnd() * 400;
      const pod = pick(PODS);
      const rate: RateRequest = {
        key: keys.rate,
        alg,
        windows,
        pod,
        hits: int(0, 29),
        hitsOld: rnd() < 0.5 ? int(0, 9) : 0,
        // a replica dates late admits at the latest its offset allows: sometimes after the store's now
        tOld: now - rnd() * 2500 + (rnd() < 0.2 ? 600 : 0),
        unused: int(0, 9),
        want: int(0, 39),
        need: int(0, 3),
        // extension: a batch on half the asks (0..12, so it often exceeds the fair share)
        batch: rnd() < 0.5 ? int(0, 12) : 0,
        allowance: pick(ALLOWANCES),
        replicas: int(1, 4),
        leaseTtlMs: rnd() < 0.5 ? 300 : 3000,
      };
      // extension: a large request waiting on a quarter of the asks (a pool), half of them with need to cover it
      if (rnd() < 0.25) {
        rate.head = int(2, 15);
        if (rnd() < 0.5) rate.need = rate.head + int(0, 3);
      } else if (rnd() < 0.2) {
        // extension: one-unit requests a Pacer keeps within their share (head 1: served pool included)
        rate.head = 1;
      }
      // extension: idempotent pushes on half the asks; a quarter of those resend (part of) an earlier push
      if (rnd() < 0.5) {
        const id = `${pod}-${int(1, 2)}`;
        const pushed = pushTotals.get(id) ?? 0;
        const base = rnd() < 0.25 ? Math.max(0, pushed - int(0, 20)) : pushed;
        rate.pushId = id;
        rate.pushTotal = base + rate.hits + rate.hitsOld;
        pushTotals.set(id, Math.max(pushed, rate.pushTotal));
      }
      // extension: the windows a replica saw, on a third of the asks: the last reply's (nothing to
      // raise), or raised as if the store had lost counts since (a window on, or more in it)
      if (lastWindows !== undefined && rnd() < 1 / 3) {
        const raise = rnd() < 0.5;
        rate.seen = lastWindows.map((w) => ({
          idx: raise ? Math.max(0, w.idx + pick([0, 0, 1, -1])) : w.idx,
          cur: raise ? w.cur + int(0, 15) : w.cur,
          prev: raise ? w.prev + int(0, 5) : w.prev,
          tat: raise && alg === 2 ? w.tat + rnd() * 2000 : w.tat,
        }));
      }
      const concurrency: ConcurrencyRequest = {
        key: keys.concurrency,
        pod,
        active: int(0, max + 1),
        unused: int(0, 4),
        want: int(0, 4),
        need: int(0, 2),
        max,
        allowance: 0.8,
        replicas: int(1, 3),
        leaseTtlMs: 5000,
      };
      const releases =
        rnd() < 1 / 20
          ? [
              { key: keys.rate, pod: pick(PODS) },
              { key: keys.concurrency, pod: pick(PODS) },
            ]
          : [];
      const request: RoundRequest = {
        now,
        releases,
        rates: [rate],
        concurrency: [concurrency],
        heartbeat: { key: keys.registry, pod, windowMs: 3000, leave: rnd() < 1 / 10 },
      };
      const expected = await opts.oracle.round(structuredClone(request));
      const actual = await opts.subject.round(structuredClone(request));
      report.rounds++;
      lastWindows = expected.rates[0]?.windows;
      compareRound(expected, actual, c, s, report);
    }
  }
  return report;
}

function compareRound(e: RoundReply, a: RoundReply, caseIndex: number, step: number, report: ParityReport) {
  const check = (field: string, expected: number, actual: number, tolerance = 0) => {
    report.compared++;
    const ok = tolerance === 0 ? expected === actual : Math.abs(expected - actual) <= tolerance;
    if (!ok) report.mismatches.push({ caseIndex, step, field, expected, actual });
  };
  const rel = (x: number) => 1e-6 * Math.max(1, Math.abs(x));
  e.rates.forEach((er, i) => {
    const ar = a.rates[i];
    if (!ar) {
      check(`rates[${i}]`, 1, 0);
      return;
    }
    check(`rates[${i}].now`, er.now, ar.now, rel(er.now));
    for (const f of ["kept", "avail", "granted", "direct", "others"] as const) {
      check(`rates[${i}].${f}`, er[f], ar[f]);
    }
    check(`rates[${i}].windows.length`, er.windows.length, ar.windows.length);
    er.windows.forEach((ew, j) => {
      const aw = ar.windows[j];
      if (!aw) return;
      for (const f of ["idx", "cur", "prev"] as const) check(`rates[${i}].windows[${j}].${f}`, ew[f], aw[f]);
      check(`rates[${i}].windows[${j}].tat`, ew.tat, aw.tat, 1e-6);
    });
  });
  e.concurrency.forEach((ec, i) => {
    const ac = a.concurrency[i];
    if (!ac) {
      check(`concurrency[${i}]`, 1, 0);
      return;
    }
    for (const f of ["kept", "granted", "direct", "others"] as const) {
      check(`concurrency[${i}].${f}`, ec[f], ac[f]);
    }
  });
  if (e.heartbeat) check("heartbeat.replicas", e.heartbeat.replicas, a.heartbeat?.replicas ?? -1);
}
