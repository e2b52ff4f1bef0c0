import { MANUAL_CLOCK_START_MS, ManualClock, type Store } from "@resil/limit";
import { SeededRandom } from "@resil/limit/testing";
import { FaultStore } from "./fault-store.js";
import { FaultTimeline } from "./faults.js";
import { OUTCOMES, type Outcome, type ReplicaFactory, type SimReplica } from "./replica.js";
import { WeightedPicker } from "./rng.js";
import { primaryLimit, type Scenario, WINDOW_MS } from "./scenario.js";
import { SettleModel } from "./settle.js";
import { Traffic } from "./traffic.js";

/** How to build the store and the replicas (the real Limiter and MemoryStore, or a stand-in in tests). */
export interface Backend {
  store(clock: ManualClock): Store;
  replica: ReplicaFactory;
}

/** Counts of one run, per window of the shortest limit (the table's rows). */
export interface RawRun {
  scenario: Scenario;
  windowMs: number;
  windowCount: number;
  /** Pods in creation order (joined replicas after the initial ones). */
  pods: string[];
  offered: Float64Array;
  admitted: Float64Array;
  /** Units of extra charge settled in each window (`--settle`): what the debt bound allows above the limit. */
  extra: Float64Array;
  /** Per cost class (the scenario's `costs` order): units offered and admitted (settled: actual units). */
  classOffered: Float64Array;
  classAdmitted: Float64Array;
  denied: Float64Array;
  /** Requests (not units) offered and denied over the whole run. */
  requests: number;
  deniedRequests: number;
  /** Cells per window in the per-replica arrays. */
  stride: number;
  /** [window * stride + replica] */
  offeredBy: Float64Array;
  admittedBy: Float64Array;
  /** Most slots held at once, per window (concurrency scenarios). */
  maxActive: Float64Array;
  slotDenials: number;
  outcomes: Record<Outcome, number>;
  storeCalls: number;
  storeFailures: number;
  paidBack: number;
  /** `--wait`: requests admitted after waiting, waits that timed out, and the longest wait admitted (ms). */
  waits: { admitted: number; timedOut: number; longestMs: number };
  /** When each replica was alive: [fromMs, toMs). */
  lifetimes: Array<{ fromMs: number; toMs: number }>;
  crashes: CrashReport[];
  /** Largest replica count any live replica believed in at the end. */
  replicasSeen: number;
  wallMs: number;
}

export interface CrashReport {
  replica: number;
  atMs: number;
  /** Slots the crashed replica held (leaked: never released). */
  leakedSlots: number;
  /** Ms after the crash until the live replicas held slots that only the expired lease could free. */
  slotsReturnedAfterMs: number | undefined;
}

export interface RunOptions {
  /** Called about every simulated second with the fraction done (for the progress bar). */
  onProgress?: (done: number) => void;
}

interface Live {
  index: number;
  replica: SimReplica;
  dead: boolean;
  active: number;
}

// Microtask turns with nothing settling before a drain gives up: the rest waits on the clock.
const IDLE_TICKS = 32;

/**
 * Runs one scenario: N replicas of the limiter on a manual clock, 1 ms steps, Poisson arrivals per
 * replica per step, a sync round every `syncEveryMs`, faults from the timeline. Arrivals try the
 * synchronous fast path first; only an undecided one awaits `check`, and within a step a replica that
 * denied a cost denies every later arrival of that cost or more without being asked again.
 */
export async function simulate(scenario: Scenario, backend: Backend, opts: RunOptions = {}): Promise<RawRun> {
  return new Simulation(scenario, backend, opts).run();
}

class Simulation {
  private readonly clock: ManualClock;
  private readonly startMs: number;
  private readonly rng: SeededRandom;
  private readonly traffic: Traffic;
  private readonly timeline: FaultTimeline;
  private readonly store: FaultStore;
  private readonly costs: WeightedPicker<number>;
  private readonly unitCost: boolean;
  private readonly windowMs: number;
  private readonly windowCount: number;
  /** Simulated ms of the run (its last step ends here). */
  private readonly endMs: number;
  private readonly maxReplicas: number;
  private readonly all: Live[] = [];
  private live: Live[] = [];
  private shares: number[] = [];
  private pending = 0;
  private settled = 0;
  private clusterActive = 0;
  private readonly loop: boolean;
  private readonly settler: SettleModel | undefined;
  private readonly classOf = new Map<number, number>();
  private readonly quiet = (): boolean => this.pending === 0 && this.store.inflight === 0;
  // A check that threw (a limiter bug): the run stops and reports it.
  private failure: unknown;
  private readonly run_: RawRun;

  constructor(
    private readonly s: Scenario,
    private readonly backend: Backend,
    private readonly opts: RunOptions,
  ) {
    const largest = Math.max(...s.limits.map((l) => WINDOW_MS[l.window]));
    // Start on a boundary of the largest window, so every window of the table is whole.
    this.startMs = Math.ceil(MANUAL_CLOCK_START_MS / largest) * largest;
    this.clock = new ManualClock(this.startMs);
    this.rng = new SeededRandom(s.seed);
    this.traffic = new Traffic(s);
    this.timeline = new FaultTimeline(s.faults);
    this.store = new FaultStore(backend.store(this.clock), this.clock, {
      timeline: this.timeline,
      startMs: this.startMs,
      latencyMs: s.store.latencyMs,
      jitterMs: s.store.jitterMs,
      rng: new SeededRandom(s.seed ^ 0x5bd1e995),
    });
    this.costs = new WeightedPicker(s.costs.map((c) => ({ item: c.cost, weight: c.weight })));
    this.unitCost = s.costs.length === 1;
    this.loop = s.driver === "loop";
    this.settler = s.settle ? new SettleModel(s.settle, s.seed) : undefined;
    s.costs.forEach((c, i) => {
      if (!this.classOf.has(c.cost)) this.classOf.set(c.cost, i);
    });
    this.windowMs = WINDOW_MS[primaryLimit(s).window];
    const durationMs = Math.round(s.duration * 1000);
    this.endMs = durationMs;
    this.windowCount = Math.max(1, Math.ceil(durationMs / this.windowMs));
    this.maxReplicas = s.replicas + s.faults.filter((f) => f.type === "join").length;
    const n = this.windowCount;
    const cells = n * this.maxReplicas;
    this.run_ = {
      scenario: s,
      windowMs: this.windowMs,
      windowCount: n,
      pods: [],
      stride: this.maxReplicas,
      offered: new Float64Array(n),
      admitted: new Float64Array(n),
      extra: new Float64Array(n),
      classOffered: new Float64Array(s.costs.length),
      classAdmitted: new Float64Array(s.costs.length),
      denied: new Float64Array(n),
      requests: 0,
      deniedRequests: 0,
      offeredBy: new Float64Array(cells),
      admittedBy: new Float64Array(cells),
      maxActive: new Float64Array(n),
      slotDenials: 0,
      outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>,
      storeCalls: 0,
      storeFailures: 0,
      paidBack: 0,
      waits: { admitted: 0, timedOut: 0, longestMs: 0 },
      lifetimes: [],
      crashes: [],
      replicasSeen: 0,
      wallMs: 0,
    };
  }

  async run(): Promise<RawRun> {
    const wallStart = performance.now();
    const s = this.s;
    // Warm-up before t = 0: two passes of forced syncs so every replica sees N, without latency.
    this.store.instant = true;
    for (let i = 0; i < s.replicas; i++) this.addReplica(0);
    for (let pass = 0; pass < 2; pass++) for (const r of this.live) await r.replica.sync(true);
    if (this.loop) for (const r of this.live) await r.replica.start();
    this.store.instant = false;
    const storeCallsBefore = this.store.calls;

    const steps = Math.round(s.duration * 1000);
    const events = this.timeline.events;
    let nextEvent = 0;
    const syncEvery = s.syncEveryMs;
    const progressEvery = 1000;
    for (let step = 0; step < steps; step++) {
      while (nextEvent < events.length && events[nextEvent]!.atMs <= step)
        this.apply(events[nextEvent++]!, step);
      const lambda = this.traffic.arrivalsPerMs(step);
      const w = Math.floor(step / this.windowMs);
      const live = this.live;
      for (let j = 0; j < live.length; j++) {
        const k = this.rng.poisson(lambda * this.shares[j]!);
        if (k > 0) {
          const slow = this.arrive(live[j]!, k, w);
          if (slow) await slow;
        }
      }
      if (!this.loop && step % syncEvery === 0) {
        for (let j = 0; j < live.length; j++) {
          // A sync that sent nothing settles on its own: only a real round trip is worth waiting for.
          const before = this.store.calls;
          const p = live[j]!.replica.sync(false);
          if (this.store.calls !== before) this.track(p);
        }
      }
      if (this.pending > 0 || this.store.inflight > 0) await this.drain(this.quiet);
      this.clock.advance(1);
      // Background rounds fired by the loop's timers land before the next step.
      if (this.loop && this.store.inflight > 0) await this.drain(this.quiet);
      if (this.failure !== undefined) throw this.failure;
      if (step % progressEvery === progressEvery - 1) this.opts.onProgress?.((step + 1) / steps);
    }
    if (this.pending > 0 || this.store.inflight > 0) await this.drain(this.quiet);
    if (this.failure !== undefined) throw this.failure;

    const out = this.run_;
    for (const r of this.all) {
      for (const o of OUTCOMES) out.outcomes[o] += r.replica.outcome(o);
      if (!r.dead) out.replicasSeen = Math.max(out.replicasSeen, r.replica.replicas());
      const life = out.lifetimes[r.index]!;
      if (!r.dead) life.toMs = steps;
    }
    out.storeCalls = this.store.calls - storeCallsBefore;
    out.storeFailures = this.store.failed;
    out.paidBack = this.store.paidBack;
    out.wallMs = performance.now() - wallStart;
    return out;
  }

  private addReplica(atMs: number): Live {
    const index = this.all.length;
    const pod = `pod-${index}`;
    const replica = this.backend.replica({
      index,
      pod,
      scenario: this.s,
      store: this.store,
      clock: this.clock,
    });
    const entry: Live = { index, replica, dead: false, active: 0 };
    this.all.push(entry);
    this.live = [...this.live, entry];
    this.shares = this.traffic.shares(this.live.length);
    this.run_.pods.push(pod);
    this.run_.lifetimes.push({ fromMs: atMs, toMs: atMs });
    return entry;
  }

  private apply(e: (typeof this.timeline.events)[number], step: number): void {
    if (e.kind === "join") {
      const r = this.addReplica(step);
      // A new replica registers and asks for credit at once (start() does that, then runs its loop).
      this.track(this.loop ? r.replica.start() : r.replica.sync(true));
      return;
    }
    const victim = this.all[e.replica];
    if (!victim || victim.dead) return;
    // A crash: the process is gone, with its leases and slots; nothing is released or shut down.
    victim.dead = true;
    this.clusterActive -= victim.active;
    this.run_.lifetimes[victim.index]!.toMs = step;
    this.run_.crashes.push({
      replica: victim.index,
      atMs: step,
      leakedSlots: victim.active,
      slotsReturnedAfterMs: undefined,
    });
    this.live = this.live.filter((r) => r !== victim);
    this.shares = this.traffic.shares(this.live.length);
  }

  /** Arrivals at one replica in one step: synchronous until the first undecided one. */
  private arrive(rep: Live, k: number, w: number): Promise<void> | undefined {
    if (this.s.wait) {
      for (let n = 0; n < k; n++) this.waitFor(rep, this.offer(rep, w), w);
      return undefined;
    }
    let deniedFrom = Number.POSITIVE_INFINITY;
    for (let n = 0; n < k; n++) {
      const cost = this.offer(rep, w);
      if (cost >= deniedFrom) {
        this.deny(cost, w);
        continue;
      }
      const v = rep.replica.tryCheck(cost);
      if (v === "allow") this.admit(rep, cost, w);
      else if (v === "deny") {
        this.deny(cost, w);
        deniedFrom = cost;
      } else return this.arriveSlow(rep, k - n - 1, cost, w, deniedFrom);
    }
    return undefined;
  }

  /** The rest of a step's arrivals after an undecided one: `check` for it, then the fast path again. */
  private async arriveSlow(
    rep: Live,
    rest: number,
    cost: number,
    w: number,
    deniedFrom: number,
  ): Promise<void> {
    // While a check waits on the clock, later arrivals at this replica queue behind it without draining.
    let waiting = false;
    for (let n = -1; n < rest; n++) {
      if (n >= 0) {
        cost = this.offer(rep, w);
        if (cost >= deniedFrom) {
          this.deny(cost, w);
          continue;
        }
        if (!waiting) {
          const v = rep.replica.tryCheck(cost);
          if (v === "allow") {
            this.admit(rep, cost, w);
            continue;
          }
          if (v === "deny") {
            this.deny(cost, w);
            deniedFrom = cost;
            continue;
          }
        }
      }
      const state = { done: false, ok: false };
      const c = cost;
      this.pending++;
      rep.replica.check(c).then(
        (ok) => {
          this.pending--;
          this.settled++;
          state.done = true;
          state.ok = ok;
          if (rep.dead) return; // a crashed process never answered
          if (ok) this.admit(rep, c, this.windowNow());
          else this.deny(c, this.windowNow());
        },
        (err: unknown) => {
          this.pending--;
          this.settled++;
          state.done = true;
          this.failure ??= err;
        },
      );
      if (waiting) continue;
      await this.drain(() => state.done);
      if (!state.done) waiting = true;
      else if (!state.ok) deniedFrom = Math.min(deniedFrom, c);
    }
  }

  /** One arrival at `rep` in window `w`: its cost, counted as offered. */
  private offer(rep: Live, w: number): number {
    const run = this.run_;
    const cost = this.unitCost ? this.s.costs[0]!.cost : this.costs.pick(this.rng);
    run.requests++;
    run.offered[w]! += cost;
    run.classOffered[this.classOf.get(cost)!]! += cost;
    run.offeredBy[w * this.maxReplicas + rep.index]! += cost;
    return cost;
  }

  /** `--wait`: the request queues on its replica's Pacer; denied only when its wait times out. */
  private waitFor(rep: Live, cost: number, w: number): void {
    const from = this.clock.monoMs();
    const waits = this.run_.waits;
    this.track(
      rep.replica.wait(cost).then((ok) => {
        // A crashed process never answered; a wait decided after the last step falls outside the run.
        if (rep.dead || this.clock.monoMs() - this.startMs >= this.endMs) return;
        const waited = this.clock.monoMs() - from;
        if (!ok) {
          waits.timedOut++;
          this.deny(cost, this.windowNow());
          return;
        }
        if (waited > 0) {
          waits.admitted++;
          waits.longestMs = Math.max(waits.longestMs, waited);
        }
        this.admit(rep, cost, waited > 0 ? this.windowNow() : w);
      }, this.onFailure),
    );
  }

  private admit(rep: Live, cost: number, w: number): void {
    const run = this.run_;
    const cls = this.classOf.get(cost)!;
    run.admitted[w]! += cost;
    run.admittedBy[w * this.maxReplicas + rep.index]! += cost;
    run.classAdmitted[cls]! += cost;
    if (this.s.concurrency) this.takeSlot(rep);
    if (this.settler) this.settleLater(rep, cost, w, cls);
  }

  /**
   * The actual cost is known `afterMs` later. A refund counts in the window of admission (the units
   * were never used); an extra charge in the window it is settled in (the limiter learns of it then).
   */
  private settleLater(rep: Live, cost: number, w: number, cls: number): void {
    const delta = this.settler!.delta(cost);
    if (delta === 0) return;
    const takenAt = rep.replica.storeTime();
    this.clock.setTimer(this.settler!.spec.afterMs, () => {
      if (rep.dead) return;
      rep.replica.settle(delta, takenAt);
      const run = this.run_;
      const at = delta > 0 ? this.windowNow() : w;
      run.admitted[at]! += delta;
      run.admittedBy[at * this.maxReplicas + rep.index]! += delta;
      run.classAdmitted[cls]! += delta;
      if (delta > 0) run.extra[at]! += delta;
    });
  }

  private deny(cost: number, w: number): void {
    this.run_.denied[w]! += cost;
    this.run_.deniedRequests++;
  }

  /** An admitted request holds a concurrency slot for holdMs (leaked if its replica crashes). */
  private takeSlot(rep: Live): void {
    const hold = this.s.concurrency!.holdMs;
    this.track(
      rep.replica.acquire().then((slot) => {
        if (rep.dead) return;
        if (slot.kind === "denied") {
          this.run_.slotDenials++;
          return;
        }
        if (slot.kind === "nocap") return;
        rep.active++;
        this.clusterActive++;
        const w = this.windowNow();
        this.run_.maxActive[w] = Math.max(this.run_.maxActive[w]!, this.clusterActive);
        this.noteSlotReturn();
        this.clock.setTimer(hold, () => {
          if (rep.dead) return;
          rep.active--;
          this.clusterActive--;
          slot.release();
        });
      }),
    );
  }

  // After a crash, live replicas holding more than max - leaked slots prove the leaked ones came back.
  private noteSlotReturn(): void {
    const max = this.s.concurrency!.max;
    const now = this.clock.monoMs() - this.startMs;
    for (const c of this.run_.crashes)
      if (
        c.slotsReturnedAfterMs === undefined &&
        c.leakedSlots > 0 &&
        this.clusterActive > max - c.leakedSlots
      )
        c.slotsReturnedAfterMs = now - c.atMs;
  }

  private windowNow(): number {
    const w = Math.floor((this.clock.monoMs() - this.startMs) / this.windowMs);
    return Math.min(Math.max(0, w), this.windowCount - 1);
  }

  // A wait that rejected other than by its timeout (a limiter bug): the run stops and reports it.
  private readonly onFailure = (err: unknown): void => {
    this.failure ??= err;
  };

  // A failed round is the limiter's business (it counts it); the simulation only stops waiting.
  private readonly onSettle = (): void => {
    this.pending--;
    this.settled++;
  };

  private track(p: Promise<unknown>): void {
    this.pending++;
    p.then(this.onSettle, this.onSettle);
  }

  /** Lets promise continuations run until `done`, or until nothing settles for IDLE_TICKS turns. */
  private async drain(done: () => boolean): Promise<void> {
    let idle = 0;
    let last = this.settled + this.store.inflight;
    while (!done() && idle < IDLE_TICKS) {
      await undefined;
      const now = this.settled + this.store.inflight;
      if (now !== last) {
        last = now;
        idle = 0;
      } else idle++;
    }
  }
}
