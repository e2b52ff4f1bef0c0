import { ManualClock } from "../clock/manual-clock.js";
import { MemoryStore } from "../store/memory-store.js";
import type { LimiterOptions, RateLimitConfig } from "./config.js";
import type { Decision } from "./decision.js";
import { Limiter } from "./limiter.js";
import { SeededRandom } from "./prng.js";

/** Chooses the replica of the `arrival`-th request (0-based) among `replicas`. */
export type ReplicaPicker = (arrival: number, replicas: number, rng: SeededRandom) => number;

/** Spreads requests evenly at random. */
export const pickUniform: ReplicaPicker = (_i, n, rng) => rng.int(0, n - 1);
/** Round robin. */
export const pickRoundRobin: ReplicaPicker = (i, n) => i % n;

export interface SimulationOptions {
  /** Number of replicas (Limiters sharing one MemoryStore). */
  replicas: number;
  /** The subject every request checks. Default "k". */
  subject?: string;
  /** Set on every replica after the warm-up, with the simulation defaults (allowance 0.8, cacheTtl 500). */
  rateLimits?: RateLimitConfig | null;
  maxConcurrent?: number | null;
  /** Set the policy before the warm-up syncs, so every replica starts holding credit. Default false. */
  warmKeys?: boolean;
  /** Limiter options (service "sim" and pod ids "pod-<i>" unless given). */
  options?: LimiterOptions;
  /** Start time of the manual clock. */
  startMs?: number;
}

export interface DriveOptions {
  durationMs: number;
  /** Offered requests per second (all replicas together), as Poisson arrivals. */
  rate: number;
  seed: number;
  /** Which replica takes each arrival. Default uniform at random. */
  pick?: ReplicaPicker;
  /** Bucket results by windows of this length (store-aligned). Default 1000. */
  windowMs?: number;
  /** Time step: arrivals of a step are checked, then every replica syncs, then time advances. Default 1. */
  stepMs?: number;
  /** Units per request. Default 1. */
  cost?: number;
  /** Sync every replica after every step (the driver of docs/protocol.md#s6). Default true. */
  sync?: boolean;
}

/** Admits and denials of one window of the drive. */
export interface WindowCount {
  /** Window start (store ms). */
  start: number;
  admitted: number;
  denied: number;
  /** Admits per replica in this window. */
  byReplica: number[];
}

export interface DriveResult {
  checks: number;
  admitted: number;
  denied: number;
  /** Per window, in time order, including empty ones. */
  windows: WindowCount[];
  /** Admits per replica. */
  perReplica: number[];
  /** Store time of every admit, in order (for envelope checks). */
  admitTimes: number[];
}

/** The sim's defaults over a given config: allowance 0.8, cacheTtl 500 (see docs/protocol.md#s6). */
export function simConfig(cfg: RateLimitConfig): RateLimitConfig {
  return { localAllowance: 0.8, cacheTtlMs: 500, ...cfg };
}

/** All windows but the first and the last. */
export function middleWindows(windows: readonly WindowCount[]): WindowCount[] {
  return windows.slice(1, -1);
}

/**
 * N replicas on one ManualClock and one MemoryStore, with the background loops NOT started: rounds
 * run only through `sync()` (and the syncs requests kick), so every run is deterministic (see docs/protocol.md#s6).
 */
export class Simulation {
  readonly clock: ManualClock;
  readonly store: MemoryStore;
  readonly limiters: Limiter[];
  readonly subject: string;

  private constructor(opts: SimulationOptions) {
    this.clock = new ManualClock(opts.startMs);
    this.store = new MemoryStore(this.clock);
    this.subject = opts.subject ?? "k";
    this.limiters = Array.from(
      { length: opts.replicas },
      (_, i) => new Limiter({ service: "sim", podId: `pod-${i}`, ...opts.options }, this.store, this.clock),
    );
  }

  /**
   * Builds the replicas and runs two passes of forced syncs so every replica sees N, then sets the
   * policy on every replica (before the warm-up with `warmKeys`).
   */
  static async create(opts: SimulationOptions): Promise<Simulation> {
    const sim = new Simulation(opts);
    if (opts.warmKeys) sim.setPolicy(opts.rateLimits, opts.maxConcurrent);
    for (let pass = 0; pass < 2; pass++) for (const l of sim.limiters) await l.syncNow(true);
    if (!opts.warmKeys) sim.setPolicy(opts.rateLimits, opts.maxConcurrent);
    return sim;
  }

  /** Sets the subject's policy on every replica, with the simulation defaults over `rateLimits`. */
  setPolicy(rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null): void {
    if (rateLimits == null && maxConcurrent == null) return;
    const cfg = rateLimits == null ? rateLimits : simConfig(rateLimits);
    for (const l of this.limiters) l.setPolicy(this.subject, cfg, maxConcurrent);
  }

  /** Store time now. */
  now(): number {
    return this.clock.unixMs();
  }

  /** One non-forced round on every replica. */
  async sync(): Promise<void> {
    for (const l of this.limiters) await l.syncNow(false);
  }

  /** Moves time forward (firing timers and letting their continuations run). */
  async advance(ms: number): Promise<void> {
    await this.clock.advanceAsync(ms);
  }

  /** Advances in `steps` of `stepMs`, syncing after each. */
  async advanceSyncing(ms: number, stepMs = 50): Promise<void> {
    for (let left = ms; left > 0; left -= stepMs) {
      this.clock.advance(Math.min(stepMs, left));
      await this.sync();
    }
  }

  /** Moves the clock to `offsetMs` past the next multiple of `windowMs` (e.g. "a minute + 1 ms"). */
  alignTo(windowMs: number, offsetMs = 0): void {
    this.clock.set((Math.floor(this.now() / windowMs) + 1) * windowMs + offsetMs);
  }

  /** `check` on replica `i`. */
  check(i: number, cost = 1, subject = this.subject): Promise<Decision> {
    return this.limiters[i]!.check(subject, cost);
  }

  /** Poisson arrivals for `durationMs`, each checked on the picked replica; results bucketed by window. */
  async drive(o: DriveOptions): Promise<DriveResult> {
    const rng = new SeededRandom(o.seed);
    const pick = o.pick ?? pickUniform;
    const windowMs = o.windowMs ?? 1000;
    const stepMs = o.stepMs ?? 1;
    const cost = o.cost ?? 1;
    const n = this.limiters.length;
    const meanPerStep = (o.rate * stepMs) / 1000;
    const buckets = new Map<number, WindowCount>();
    const result: DriveResult = {
      checks: 0,
      admitted: 0,
      denied: 0,
      windows: [],
      perReplica: new Array<number>(n).fill(0),
      admitTimes: [],
    };
    const startIdx = Math.floor(this.now() / windowMs);
    const end = this.now() + o.durationMs;
    let arrival = 0;
    while (this.now() < end) {
      const arrivals = rng.poisson(meanPerStep);
      for (let j = 0; j < arrivals; j++) {
        const i = pick(arrival++, n, rng);
        const t = this.now();
        const d = await this.limiters[i]!.check(this.subject, cost);
        const idx = Math.floor(t / windowMs);
        let b = buckets.get(idx);
        if (b === undefined) {
          b = { start: idx * windowMs, admitted: 0, denied: 0, byReplica: new Array<number>(n).fill(0) };
          buckets.set(idx, b);
        }
        result.checks++;
        if (d.kind === "deny") {
          b.denied++;
          result.denied++;
        } else {
          b.admitted++;
          b.byReplica[i]!++;
          result.admitted++;
          result.perReplica[i]!++;
          result.admitTimes.push(t);
        }
      }
      if (o.sync !== false) await this.sync();
      this.clock.advance(stepMs);
    }
    const endIdx = Math.floor((end - 1) / windowMs);
    for (let idx = startIdx; idx <= endIdx; idx++) {
      result.windows.push(
        buckets.get(idx) ?? {
          start: idx * windowMs,
          admitted: 0,
          denied: 0,
          byReplica: new Array<number>(n).fill(0),
        },
      );
    }
    return result;
  }

  /** Shuts every replica down. */
  async shutdown(): Promise<void> {
    for (const l of this.limiters) await l.shutdown();
  }
}
