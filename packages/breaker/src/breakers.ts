import { type Clock, systemClock } from "./clock.js";
import { BreakerConfig, MAX_FAILURES_KEPT } from "./config.js";
import { BreakerConfigError } from "./errors.js";

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

export type BreakerCheck = { allowed: true } | ({ allowed: false } & Refusal);

/** What moved a breaker: its failures, a delay hint, a failed probe, time, or a success. */
export type TransitionCause = "threshold" | "openFor" | "probeFailed" | "probe" | "success";

/** One state change of one key. `closed -> open` is the spec's "opened" (gauge `breaker_open{tier,key}` = 1). */
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
  /** How often idle closed entries are swept out, ms. Default: the config's `windowMs`. */
  sweepIntervalMs?: number;
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
  /** Time-ordered, oldest first. */
  failures: Failure[];
}

/** A half-open breaker whose probe is running tells other callers to come back this soon. */
export const PROBE_RETRY_MS = 1000;

const allowed: BreakerCheck = { allowed: true };

/** One tier of keyed circuit breakers. Entries are made lazily; idle closed ones are evicted. */
export class Breakers {
  readonly tier: Tier;
  readonly config: BreakerConfig;
  private readonly clock: Clock;
  private readonly onTransition: ((event: TransitionEvent) => void) | undefined;
  private readonly sweepIntervalMs: number;
  private readonly entries = new Map<string, Entry>();
  private lastSweep: number;

  constructor(tier: Tier, config: BreakerConfig = BreakerConfig[tier](), options: BreakersOptions = {}) {
    this.tier = tier;
    this.config = BreakerConfig.validate(config);
    this.clock = options.clock ?? systemClock;
    this.onTransition = options.onTransition;
    const sweep = options.sweepIntervalMs ?? config.windowMs;
    // Infinity turns sweeping off; NaN or a negative would sweep on every call.
    if (!(sweep >= 0))
      throw new BreakerConfigError("sweepIntervalMs", "must be >= 0 (Infinity: never sweep)");
    this.sweepIntervalMs = sweep;
    this.lastSweep = this.clock.now();
  }

  /** Entries held now (closed ones with recent failures, open and half-open ones). */
  get size(): number {
    return this.entries.size;
  }

  /** May a call to `key` go ahead? An expired open lets exactly one probe through. */
  check(key: string): BreakerCheck {
    const now = this.clock.now();
    this.maybeSweep(now);
    const entry = this.entries.get(key);
    if (!entry) return allowed;
    const state = entry.state;
    switch (state.value) {
      case "closed":
        return allowed;
      case "open":
        if (now < state.until) return { allowed: false, tier: this.tier, retryInMs: state.until - now };
        this.move(key, entry, { value: "halfOpen", probeStartedAt: now }, "probe", now);
        return allowed;
      case "halfOpen":
        if (now - state.probeStartedAt < this.config.openForMs) {
          return { allowed: false, tier: this.tier, retryInMs: PROBE_RETRY_MS };
        }
        // the previous probe never reported: start a new one rather than stay wedged
        entry.state = { value: "halfOpen", probeStartedAt: now };
        return allowed;
    }
  }

  /** The state without side effects: an expired open reads as half-open. */
  state(key: string): BreakerState {
    const entry = this.entries.get(key);
    if (!entry) return { value: "closed" };
    const state = entry.state;
    if (state.value === "open" && this.clock.now() >= state.until) return { value: "halfOpen" };
    return { ...state };
  }

  /** A call succeeded: forget its failures and close. */
  recordSuccess(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    const now = this.clock.now();
    if (entry.state.value !== "closed") this.move(key, entry, { value: "closed" }, "success", now);
    // closed with no failures is the same as no entry
    this.entries.delete(key);
  }

  /** A call failed; `source` is the target it failed on (distinct sources matter for `minSources`). */
  recordFailure(key: string, source: string): void {
    const now = this.clock.now();
    this.maybeSweep(now);
    const entry = this.entry(key);
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
    if (entry.state.value !== "closed" || failures.length < this.config.failureThreshold) return;
    if (new Set(failures.map((f) => f.source)).size < this.config.minSources) return;
    entry.failures = [];
    this.move(key, entry, { value: "open", until: now + this.config.openForMs }, "threshold", now);
  }

  /** Open `key` for exactly `ms` (a 429 with a delay hint); a longer open already in place is kept. */
  openFor(key: string, ms: number): void {
    const now = this.clock.now();
    this.maybeSweep(now);
    const until = now + Math.max(0, ms);
    const entry = this.entry(key);
    if (entry.state.value === "open" && entry.state.until >= until) return;
    if (entry.state.value === "open") entry.state = { value: "open", until };
    else this.move(key, entry, { value: "open", until }, "openFor", now);
  }

  private entry(key: string): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { state: { value: "closed" }, failures: [] };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private move(key: string, entry: Entry, to: Entry["state"], cause: TransitionCause, at: number): void {
    const from = entry.state.value;
    entry.state = to;
    if (from === to.value || !this.onTransition) return;
    try {
      this.onTransition({ tier: this.tier, key, from, to: to.value, cause, at });
    } catch {
      // observability must not change the breaker's behaviour
    }
  }

  /** Drops closed entries whose newest failure left the window: they hold nothing a decision could use. */
  private maybeSweep(now: number): void {
    if (now - this.lastSweep < this.sweepIntervalMs) return;
    this.lastSweep = now;
    const oldest = now - this.config.windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.state.value !== "closed") continue;
      const newest = entry.failures[entry.failures.length - 1];
      if (!newest || newest.at < oldest) this.entries.delete(key);
    }
  }
}
