import { type Clock, systemClock } from "./clock.js";
import {
  BreakerConfig,
  DEFAULT_BUCKETS,
  DEFAULT_MINIMUM_VOLUME,
  MAX_FAILURES_KEPT,
  MAX_OPEN_FOR_MS,
} from "./config.js";
import { BreakerConfigError } from "./errors.js";
import { BreakerCounters, type BreakerMetrics } from "./metrics.js";
import { RollingCounts } from "./rolling.js";

export type Tier = "deployment" | "vendor";

/** A breaker's state; `halfOpen` without `probeStartedAt` is an expired open no call has probed yet. */
export type BreakerState =
  | { value: "closed" }
  | { value: "open"; until: number }
  | { value: "halfOpen"; probeStartedAt?: number };

export type StateName = BreakerState["value"];

/** Why a call may not go ahead, and when to ask again. */
export interface Refusal {
  tier: Tier;
  retryInMs: number;
}

/**
 * May the call go ahead? `probes` names the tiers whose single half-open probe this call holds: give
 * them back with `release` when the call is not made or says nothing about health.
 */
export type BreakerCheck = { allowed: true; probes?: readonly Tier[] } | ({ allowed: false } & Refusal);

/** What moved a breaker: its failures, a delay hint, a failed probe, time, a success, or another replica. */
export type TransitionCause = "threshold" | "openFor" | "probeFailed" | "probe" | "success" | "shared";

/** One state change of one key. `closed -> open` is the moment to set a `breaker_open{tier,key}` gauge to 1. */
export interface TransitionEvent {
  tier: Tier;
  key: string;
  from: StateName;
  to: StateName;
  cause: TransitionCause;
  /** Clock time of the change, ms. */
  at: number;
}

export interface BreakersOptions {
  /** Default `systemClock` (monotonic). */
  clock?: Clock;
  /** Called on every state change. A throwing hook is ignored. */
  onTransition?: (event: TransitionEvent) => void;
  /** How often idle entries are swept out, ms. Default: the config's `windowMs`. */
  sweepIntervalMs?: number;
  /** State shared with other replicas (e.g. `RedisSharedBreakers`); off by default. */
  shared?: SharedBreakerLink;
}

/** What Breakers need of a shared state: a say on who probes, and every local change to publish. */
export interface SharedBreakerLink {
  /** Called once by each Breakers the link is given to. */
  attach(breakers: Breakers): void;
  /** May this replica send the probe of `key`'s expired open? (One probe cluster-wide.) */
  mayProbe(tier: Tier, key: string): boolean;
  /** A local state change (never one applied from the shared state); `untilMs` for opens, on this clock. */
  changed(event: TransitionEvent, untilMs: number | undefined): void;
}

interface Failure {
  at: number;
  source: string;
}

interface Entry {
  state:
    | { value: "closed" }
    | { value: "open"; until: number }
    | { value: "halfOpen"; probeStartedAt: number };
  /** Time-ordered, oldest first, at most MAX_FAILURES_KEPT. */
  failures: Failure[];
  /** Rate mode only: calls and failures in the rolling window. */
  counts: RollingCounts | undefined;
}

/** A half-open breaker whose probe is running tells other callers to come back this soon. */
export const PROBE_RETRY_MS = 1000;

const allowed: BreakerCheck = Object.freeze({ allowed: true });

/** One tier of keyed circuit breakers. Entries are made lazily; idle and long-expired ones are evicted. */
export class Breakers {
  readonly tier: Tier;
  readonly config: BreakerConfig;
  private readonly clock: Clock;
  private readonly onTransition: ((event: TransitionEvent) => void) | undefined;
  private readonly shared: SharedBreakerLink | undefined;
  private readonly sweepIntervalMs: number;
  private readonly entries = new Map<string, Entry>();
  private readonly counters = new BreakerCounters();
  private readonly probeGrant: BreakerCheck;
  private readonly rate: { threshold: number; minimumVolume: number; buckets: number } | undefined;
  private lastSweep: number;

  constructor(tier: Tier, config: BreakerConfig = BreakerConfig[tier](), options: BreakersOptions = {}) {
    this.tier = tier;
    this.config = BreakerConfig.validate(config);
    this.clock = options.clock ?? systemClock;
    this.onTransition = options.onTransition;
    this.shared = options.shared;
    const sweep = options.sweepIntervalMs ?? config.windowMs;
    // Infinity turns sweeping off; NaN or a negative would sweep on every call.
    if (!(sweep >= 0))
      throw new BreakerConfigError("sweepIntervalMs", "must be >= 0 (Infinity: never sweep)");
    this.sweepIntervalMs = sweep;
    this.lastSweep = this.clock.now();
    this.probeGrant = Object.freeze({ allowed: true, probes: Object.freeze([tier]) });
    const threshold = config.failureRateThreshold;
    if (threshold !== undefined) {
      const minimumVolume = config.minimumVolume ?? DEFAULT_MINIMUM_VOLUME;
      this.rate = { threshold, minimumVolume, buckets: config.buckets ?? DEFAULT_BUCKETS };
    }
    this.shared?.attach(this);
  }

  /**
   * Applies a state another replica published (`RedisSharedBreakers` calls this): open for `ms` (0: an
   * expired open, waiting for its one probe) or closed. Reported with cause "shared", not published again.
   */
  applyShared(key: string, state: { value: "open"; ms: number } | { value: "closed" }): void {
    const now = this.clock.now();
    if (state.value === "closed") {
      const entry = this.entries.get(key);
      if (!entry || entry.state.value === "closed") return;
      this.move(key, entry, { value: "closed" }, "shared", now);
      this.entries.delete(key);
      return;
    }
    const until = now + Math.min(Math.max(0, state.ms), MAX_OPEN_FOR_MS);
    const entry = this.entry(key, now);
    if (entry.state.value === "open" && entry.state.until >= until) return;
    if (entry.state.value === "halfOpen") return; // this replica's probe is running: its outcome decides
    this.move(key, entry, { value: "open", until }, "shared", now);
  }

  /** Entries held now (closed ones with recent calls or failures, open and half-open ones). */
  get size(): number {
    return this.entries.size;
  }

  /** May a call to `key` go ahead? An expired open lets exactly one probe through (`probes` says so). */
  check(key: string): BreakerCheck {
    const now = this.clock.now();
    this.maybeSweep(now);
    const entry = this.entries.get(key);
    if (!entry) return allowed;
    const refusal = this.refusal(key, entry, now);
    if (refusal) {
      this.counters.refusals++;
      return refusal;
    }
    const state = entry.state;
    if (state.value === "closed") return allowed;
    this.counters.probesGranted++;
    // an expired open, or a probe that never reported: this call is the probe (the breaker cannot wedge)
    if (state.value === "open")
      this.move(key, entry, { value: "halfOpen", probeStartedAt: now }, "probe", now);
    else entry.state = { value: "halfOpen", probeStartedAt: now };
    return this.probeGrant;
  }

  /** What `check` would answer now, without taking a probe or counting anything. */
  peek(key: string): BreakerCheck {
    const entry = this.entries.get(key);
    if (!entry) return allowed;
    return this.refusal(key, entry, this.clock.now()) ?? allowed;
  }

  /**
   * Gives back the probe a `check` handed out, when the call was not made (a limiter denied it, the
   * caller gave up) or its outcome says nothing about health: the next caller may probe at once.
   */
  release(key: string): void {
    const entry = this.entries.get(key);
    if (entry?.state.value !== "halfOpen") return;
    this.counters.probesReleased++;
    // an open that expired just now: the next check probes, no state change is reported
    entry.state = { value: "open", until: this.clock.now() };
  }

  /** The state without side effects: an expired open reads as half-open. */
  state(key: string): BreakerState {
    const entry = this.entries.get(key);
    if (!entry) return { value: "closed" };
    const state = entry.state;
    if (state.value === "open" && this.clock.now() >= state.until) return { value: "halfOpen" };
    return { ...state };
  }

  /** A call succeeded: close; count mode forgets the key's failures, rate mode counts the call. */
  recordSuccess(key: string): void {
    const entry = this.entries.get(key);
    if (!this.rate) {
      if (!entry) return;
      if (entry.state.value !== "closed")
        this.move(key, entry, { value: "closed" }, "success", this.clock.now());
      // closed with no failures is the same as no entry
      this.entries.delete(key);
      return;
    }
    const now = this.clock.now();
    const e = entry ?? this.entry(key, now);
    if (e.state.value !== "closed") {
      this.move(key, e, { value: "closed" }, "success", now);
      e.failures = [];
      e.counts?.clear();
    }
    e.counts?.add(now, false);
  }

  /** A call failed; `source` is the target it failed on (distinct sources matter for `minSources`). */
  recordFailure(key: string, source: string): void {
    const now = this.clock.now();
    this.maybeSweep(now);
    const entry = this.entry(key, now);
    if (entry.state.value === "halfOpen") {
      this.move(key, entry, { value: "open", until: now + this.config.openForMs }, "probeFailed", now);
      return;
    }
    const failures = entry.failures;
    const oldest = now - this.config.windowMs;
    let stale = 0;
    while (stale < failures.length && failures[stale]!.at < oldest) stale++;
    if (stale > 0) failures.splice(0, stale);
    failures.push({ at: now, source });
    if (failures.length > MAX_FAILURES_KEPT) failures.splice(0, failures.length - MAX_FAILURES_KEPT);
    entry.counts?.add(now, true);
    if (entry.state.value !== "closed" || !this.tripped(entry, now)) return;
    if (new Set(failures.map((f) => f.source)).size < this.config.minSources) return;
    entry.failures = [];
    entry.counts?.clear();
    this.move(key, entry, { value: "open", until: now + this.config.openForMs }, "threshold", now);
  }

  /**
   * Open `key` for `ms` (a 429 with a delay hint); a longer open already in place is kept. `ms` is
   * clamped to 0..MAX_OPEN_FOR_MS (one hour; Infinity too); NaN reads as the config's `openForMs`.
   */
  openFor(key: string, ms: number): void {
    const now = this.clock.now();
    this.maybeSweep(now);
    const span = Number.isNaN(ms) ? this.config.openForMs : Math.min(Math.max(0, ms), MAX_OPEN_FOR_MS);
    const until = now + span;
    const entry = this.entry(key, now);
    if (entry.state.value === "open" && entry.state.until >= until) return;
    if (entry.state.value === "open") entry.state = { value: "open", until };
    else this.move(key, entry, { value: "open", until }, "openFor", now);
  }

  /** Counters since construction and the keys open now. */
  metrics(): BreakerMetrics {
    return { at: Date.now(), samples: this.samples() };
  }

  /** The samples of `metrics()`, for combining tiers. */
  samples(): BreakerMetrics["samples"] {
    let open = 0;
    for (const entry of this.entries.values()) if (entry.state.value !== "closed") open++;
    return this.counters.samples(this.tier, open, this.entries.size);
  }

  private tripped(entry: Entry, now: number): boolean {
    const rate = this.rate;
    if (!rate) return entry.failures.length >= this.config.failureThreshold;
    const { total, failures } = entry.counts!.sums(now);
    return total >= rate.minimumVolume && failures >= rate.threshold * total;
  }

  private refusal(key: string, entry: Entry, now: number): BreakerCheck | undefined {
    const state = entry.state;
    if (state.value === "open" && now < state.until) {
      return { allowed: false, tier: this.tier, retryInMs: state.until - now };
    }
    if (state.value === "halfOpen" && now - state.probeStartedAt < this.config.openForMs) {
      return { allowed: false, tier: this.tier, retryInMs: PROBE_RETRY_MS };
    }
    // an expired open (or a stale probe): only the replica holding the cluster's probe may send it
    if (state.value !== "closed" && this.shared && !this.shared.mayProbe(this.tier, key)) {
      return { allowed: false, tier: this.tier, retryInMs: PROBE_RETRY_MS };
    }
    return undefined;
  }

  private entry(key: string, _now: number): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      const counts = this.rate ? new RollingCounts(this.rate.buckets, this.config.windowMs) : undefined;
      entry = { state: { value: "closed" }, failures: [], counts };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private move(key: string, entry: Entry, to: Entry["state"], cause: TransitionCause, at: number): void {
    const from = entry.state.value;
    entry.state = to;
    if (from === to.value) return;
    this.counters.transition(to.value, cause);
    const event: TransitionEvent = { tier: this.tier, key, from, to: to.value, cause, at };
    if (this.shared && cause !== "shared")
      this.shared.changed(event, to.value === "open" ? to.until : undefined);
    if (!this.onTransition) return;
    try {
      this.onTransition(event);
    } catch {
      // observability must not change the breaker's behaviour
    }
  }

  /**
   * Drops entries that hold nothing a decision could use: closed ones with nothing left in the
   * window, opens that expired a window ago unprobed, probes that never reported a window after
   * their limit (those would otherwise be kept for as long as nobody asks about their key).
   */
  private maybeSweep(now: number): void {
    if (now - this.lastSweep < this.sweepIntervalMs) return;
    this.lastSweep = now;
    const { windowMs, openForMs } = this.config;
    const oldest = now - windowMs;
    for (const [key, entry] of this.entries) {
      const state = entry.state;
      if (state.value === "open") {
        if (state.until < oldest) this.entries.delete(key);
      } else if (state.value === "halfOpen") {
        if (state.probeStartedAt + openForMs < oldest) this.entries.delete(key);
      } else {
        const newest = entry.failures[entry.failures.length - 1];
        const failuresIdle = !newest || newest.at < oldest;
        if (failuresIdle && (entry.counts?.idleAt(now) ?? true)) this.entries.delete(key);
      }
    }
  }
}
