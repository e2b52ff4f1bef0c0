import {
  Limiter,
  MANUAL_CLOCK_START_MS,
  ManualClock,
  MemoryStore,
  type RoundReply,
  type RoundRequest,
  type Store,
} from "@resil/limit";
import { SeededRandom } from "@resil/limit/testing";
import { rateConfig, simLimiterOptions } from "./limiter-backend.js";
import { type Popularity, SubjectPicker } from "./popularity.js";
import { type Scenario, toleranceUnits, WINDOW_MS, windowBound } from "./scenario.js";
import { Traffic } from "./traffic.js";

/** The keys dimension: how many subjects of one family, and how requests spread over them. */
export interface KeysOptions {
  count: number;
  popularity: Popularity;
}

/** Per-subject windows of one limit: how many had traffic, how many went over. */
export interface KeyWindows {
  window: string;
  limit: number;
  /** (subject, aligned window) pairs with at least one admit. */
  used: number;
  over: number;
  /** Largest admits of one subject in one window, and that over its bound. */
  worst: number;
  worstExcess: number;
}

/** What a keys run measured. */
export interface KeysRun {
  scenario: Scenario;
  keys: KeysOptions;
  /** Requests offered, admitted, denied, and decided without the store (tryCheck alone). */
  requests: number;
  admitted: number;
  denied: number;
  decidedLocally: number;
  /** Subjects that got at least one request. */
  subjectsSeen: number;
  /** Store round trips and key-syncs (rate and concurrency keys carried), all replicas, per simulated second. */
  storeCallsPerS: number;
  keySyncsPerS: number;
  /** Subjects held at the end and at most, summed over the replicas (evicted ones are gone). */
  subjectsHeldEnd: number;
  subjectsHeldMax: number;
  windows: KeyWindows[];
  /** Share of all requests the most popular subject got. */
  topShare: number;
  wallMs: number;
}

// Microtask turns with nothing settling before a drain gives up: the rest waits on the clock.
const IDLE_TICKS = 32;
/** The family every simulated subject belongs to. */
export const KEYS_FAMILY = "u:";

/** Counts store round trips and the keys they carry. */
class CountingStore implements Store {
  calls = 0;
  keySyncs = 0;
  constructor(private readonly inner: Store) {}
  round(request: RoundRequest): Promise<RoundReply> {
    this.calls++;
    this.keySyncs += request.rates.length + request.concurrency.length;
    return this.inner.round(request);
  }
}

/** Admits per subject in the current aligned window of one limit; checked as each window closes. */
class WindowCounter {
  readonly result: KeyWindows;
  private readonly counts: Int32Array;
  private touched: number[] = [];
  private current = 0;

  constructor(
    count: number,
    readonly windowMs: number,
    private readonly bound: number,
    window: string,
    limit: number,
  ) {
    this.counts = new Int32Array(count);
    this.result = { window, limit, used: 0, over: 0, worst: 0, worstExcess: 0 };
  }

  add(subject: number, units: number, w: number): void {
    if (w !== this.current) this.close(w);
    if (this.counts[subject] === 0) this.touched.push(subject);
    this.counts[subject]! += units;
  }

  close(next: number): void {
    const r = this.result;
    for (const i of this.touched) {
      const n = this.counts[i]!;
      r.used++;
      if (n > r.worst) r.worst = n;
      if (n > this.bound) {
        r.over++;
        r.worstExcess = Math.max(r.worstExcess, n - this.bound);
      }
      this.counts[i] = 0;
    }
    this.touched = [];
    this.current = next;
  }
}

/**
 * Many subjects of one family on N replicas (see @resil/limit docs/protocol.md#s1-7): the scenario's
 * limits apply to each subject; `load` x the tightest limit is the whole cluster's offered rate,
 * spread over the subjects by popularity and evenly (or skewed) over the replicas. Checks every
 * subject's aligned windows and counts the store work.
 */
export async function runKeys(s: Scenario, keys: KeysOptions): Promise<KeysRun> {
  const wallStart = performance.now();
  const largest = Math.max(...s.limits.map((l) => WINDOW_MS[l.window]));
  const startMs = Math.ceil(MANUAL_CLOCK_START_MS / largest) * largest;
  const clock = new ManualClock(startMs);
  const memory = new MemoryStore(clock);
  if (s.store.latencyMs > 0) memory.setLatency(s.store.latencyMs);
  const store = new CountingStore(memory);
  const rng = new SeededRandom(s.seed);
  const picker = new SubjectPicker(keys.count, keys.popularity);
  const names: string[] = new Array(keys.count);
  for (let i = 0; i < keys.count; i++) names[i] = `${KEYS_FAMILY}${i}`;
  const traffic = new Traffic(s);
  const o = s.limiter;
  const replicas: Limiter[] = [];
  for (let i = 0; i < s.replicas; i++) {
    const l = new Limiter(simLimiterOptions(o, `pod-${i}`), store, clock);
    l.setFamily(KEYS_FAMILY, rateConfig(s));
    replicas.push(l);
  }
  const counters = s.limits.map(
    (l) =>
      new WindowCounter(
        keys.count,
        WINDOW_MS[l.window],
        windowBound(s, l) + toleranceUnits(s, l),
        l.window,
        l.limit,
      ),
  );
  const seen = new Uint8Array(keys.count);
  const run = { requests: 0, admitted: 0, denied: 0, local: 0, seen: 0, heldMax: 0 };
  let pending = 0;
  let settled = 0;
  let failure: unknown;
  const cost = s.costs[0]!.cost;
  const record = (subject: number, ok: boolean) => {
    if (!ok) {
      run.denied++;
      return;
    }
    run.admitted++;
    const at = clock.monoMs() - startMs;
    for (const c of counters) c.add(subject, cost, Math.floor(at / c.windowMs));
  };
  const drain = async () => {
    let idle = 0;
    let last = settled;
    while (pending > 0 && idle < IDLE_TICKS) {
      await undefined;
      if (settled !== last) {
        last = settled;
        idle = 0;
      } else idle++;
    }
  };
  const track = (p: Promise<unknown>) => {
    pending++;
    p.then(
      () => {
        pending--;
        settled++;
      },
      (err: unknown) => {
        pending--;
        settled++;
        failure ??= err;
      },
    );
  };

  // Warm-up before t = 0, as the single-subject run does: every replica registers and sees N.
  for (let pass = 0; pass < 2; pass++) for (const l of replicas) await l.syncNow(true);
  const loop = s.driver === "loop";
  if (loop) for (const l of replicas) await l.start();
  const callsBefore = store.calls;
  const syncsBefore = store.keySyncs;
  const shares = traffic.shares(replicas.length);
  const steps = Math.round(s.duration * 1000);
  for (let step = 0; step < steps; step++) {
    const lambda = traffic.arrivalsPerMs(step);
    for (let j = 0; j < replicas.length; j++) {
      const l = replicas[j]!;
      const n = rng.poisson(lambda * shares[j]!);
      for (let a = 0; a < n; a++) {
        const i = picker.pick(rng);
        run.requests++;
        if (seen[i] === 0) {
          seen[i] = 1;
          run.seen++;
        }
        const d = l.tryCheck(names[i]!, cost);
        if (d !== undefined) {
          run.local++;
          record(i, d.kind !== "deny");
        } else track(l.check(names[i]!, cost).then((x) => record(i, x.kind !== "deny")));
      }
    }
    if (!loop && step % s.syncEveryMs === 0) for (const l of replicas) track(l.syncNow(false));
    if (pending > 0) await drain();
    clock.advance(1);
    if (pending > 0) await drain();
    if (failure !== undefined) throw failure;
    if (step % 1000 === 999) {
      let held = 0;
      for (const l of replicas) held += l.size;
      run.heldMax = Math.max(run.heldMax, held);
    }
  }
  // Checks still waiting on the clock settle within their wait budget; bounded all the same.
  for (let i = 0; pending > 0 && i < 60_000; i++) {
    clock.advance(1);
    await drain();
  }
  if (failure !== undefined) throw failure;
  for (const c of counters) c.close(-1);
  let held = 0;
  for (const l of replicas) held += l.size;
  // The farewell rounds run on the virtual clock (a store latency waits on it): advance until done.
  let closed = false;
  const closing = Promise.all(replicas.map((l) => l.shutdown())).then(() => {
    closed = true;
  });
  for (let i = 0; !closed && i < 60_000; i++) {
    await undefined;
    if (!closed) clock.advance(1);
  }
  await closing;
  return {
    scenario: s,
    keys,
    requests: run.requests,
    admitted: run.admitted,
    denied: run.denied,
    decidedLocally: run.local,
    subjectsSeen: run.seen,
    storeCallsPerS: (store.calls - callsBefore) / s.duration,
    keySyncsPerS: (store.keySyncs - syncsBefore) / s.duration,
    subjectsHeldEnd: held,
    subjectsHeldMax: Math.max(run.heldMax, held),
    windows: counters.map((c) => c.result),
    topShare: picker.share(0),
    wallMs: performance.now() - wallStart,
  };
}
