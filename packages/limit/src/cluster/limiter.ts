import type { Clock } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import type { Store } from "../store/types.js";
import { type Budget, checkAll } from "./budgets.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import {
  type LimiterOptions,
  RATE_DEFAULTS,
  type RateLimitConfig,
  type ResolvedOptions,
  resolveOptions,
} from "./config.js";
import {
  type AcquireResult,
  ALLOW_LOCAL,
  type Decision,
  OUTCOMES,
  type Outcome,
  UNLIMITED,
} from "./decision.js";
import { InvalidCostError, LimiterClosedError } from "./errors.js";
import { Exchange } from "./exchange.js";
import { LocalWindows } from "./fail-static.js";
import { parseFamily } from "./families.js";
import { allowWithFreshHeaders } from "./headers.js";
import { IdleSweep } from "./idle-sweep.js";
import { registryStoreKey } from "./keys.js";
import { type LimiterMetrics, snapshotMetrics } from "./metrics.js";
import { RateAdmission } from "./rate-admission.js";
import type { RateKeyState } from "./rate-key.js";
import { IDLE_TICK_MS, SyncTimers } from "./schedule.js";
import { checkSettle, settleKey } from "./settle.js";
import { SlotAdmission } from "./slot-admission.js";
import { StoreHealth } from "./store-health.js";
import { type PolicyEntry, parsePolicy, SubjectTable } from "./subjects.js";
import type { SyncEnv } from "./sync-maths.js";
import type { SyncSchedule } from "./sync-schedule.js";
import { WaitDeadlines } from "./wait-deadlines.js";

export type { PolicyEntry } from "./subjects.js";

// What spend() returns when credit cannot cover a request (store times are finite).
const NO_CREDIT = Number.NEGATIVE_INFINITY;

const UNLIMITED_SLOT: AcquireResult = Object.freeze({ kind: "unlimited" });

type Phase = "new" | "running" | "closed";

function checkCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidCostError(cost);
}

/**
 * A cluster-wide rate and concurrency limiter (see docs/protocol.md): each replica admits from
 * credit the store granted it, with no I/O per request; a background loop pushes admits and asks for
 * more in one round trip. Without a store every key is local-only.
 */
export class Limiter {
  readonly podId: string;
  readonly service: string;
  private readonly options: ResolvedOptions;
  private readonly store: Store | undefined;
  private readonly clock: Clock;
  private readonly health: StoreHealth;
  private readonly subjects: SubjectTable;
  // The subject table's maps, read directly on the hot path.
  private readonly rates: Map<string, RateKeyState>;
  private readonly caps: Map<string, ConcurrencyKeyState>;
  /** Window counts of local-only keys and of fail-static decisions. */
  private readonly localWindows = new LocalWindows();
  private readonly exchange: Exchange;
  private readonly timers: SyncTimers;
  private readonly schedule: SyncSchedule;
  private readonly idle: IdleSweep;
  private readonly slots: SlotAdmission;
  /** Rate decisions when credit does not cover a request. */
  private readonly slow: RateAdmission;
  private readonly counts = [0, 0, 0, 0, 0, 0, 0, 0];
  /** acquire() outcomes, counted apart from rate decisions (same OUTCOMES order). */
  private readonly slotCounts = [0, 0, 0, 0, 0, 0, 0, 0];
  private phase: Phase = "new";
  private shutdownDone: Promise<void> | undefined;
  private metricsCache: LimiterMetrics | undefined;
  private metricsAt = Number.NEGATIVE_INFINITY;

  /**
   * `clock` defaults to `coarseClock`: the system clock read at most once per event-loop turn, so
   * admission from credit reads a cached time.
   */
  constructor(options: LimiterOptions = {}, store?: Store, clock: Clock = coarseClock) {
    this.options = resolveOptions(options);
    this.podId = this.options.podId;
    this.service = this.options.service;
    this.store = store;
    this.clock = clock;
    this.health = new StoreHealth(
      clock.monoMs(),
      clock.unixMs(),
      this.options.expectedReplicas,
      this.options.onEvent,
    );
    this.health.recoverySpanMs = this.options.heartbeatMs / 2 + this.options.roundTimeoutMs;
    this.subjects = new SubjectTable(this.service, store !== undefined);
    this.rates = this.subjects.rates;
    this.caps = this.subjects.caps;
    const env: SyncEnv = { options: this.options, health: this.health, localWindows: this.localWindows };
    this.exchange = new Exchange(env, clock, store, registryStoreKey(this.service), this.subjects);
    this.schedule = this.exchange.schedule;
    this.idle = new IdleSweep(this.subjects, this.localWindows, this.options, () => this.health.offset);
    this.subjects.onFamilyState = (state) => this.idle.watch(state, clock.monoMs());
    this.timers = new SyncTimers(
      env,
      clock,
      this.schedule.awake,
      this.exchange,
      (now) => this.idle.sweep(now),
      (now) =>
        this.schedule.isEmpty() && this.health.settled() && !this.health.failing
          ? Math.min(IDLE_TICK_MS, this.exchange.heartbeatDueIn(now), this.idle.dueIn(now))
          : 0,
    );
    this.schedule.onFirstDue = () => this.timers.resume();
    const deadlines = new WaitDeadlines(clock);
    this.slots = new SlotAdmission(
      env,
      deadlines,
      this.exchange,
      this.slotCounts,
      () => this.phase === "closed",
    );
    this.slow = new RateAdmission({
      env,
      clock,
      deadlines,
      exchange: this.exchange,
      timers: this.timers,
      schedule: this.schedule,
      localWindows: this.localWindows,
      counts: this.counts,
      closed: () => this.phase === "closed",
      admit: (k, cost, outcome) => this.admit(k, cost, outcome),
    });
  }

  /** The last store error (diagnostics). */
  get lastStoreError(): unknown {
    return this.health.lastError;
  }

  // ---------------------------------------------------------------- lifecycle

  /** With a store: one forced round with a heartbeat (errors ignored), then the background loop. */
  async start(): Promise<void> {
    if (this.phase === "closed") throw new LimiterClosedError("start");
    if (this.phase === "running") return;
    this.phase = "running";
    this.timers.running = true;
    if (this.store === undefined) return;
    await this.exchange.round(true, true);
    if (this.phase !== "running") return;
    this.timers.start();
  }

  /**
   * Stops the loop, pushes every pending admit (a final forced round), releases this replica's leases
   * and leaves the registry, each bounded by roundTimeoutMs. Idempotent; leaves no timer behind.
   */
  shutdown(): Promise<void> {
    this.shutdownDone ??= this.close();
    return this.shutdownDone;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  private async close(): Promise<void> {
    this.phase = "closed";
    this.timers.stop();
    this.exchange.closed = true;
    for (const k of this.rates.values()) k.validUntil = Number.NEGATIVE_INFINITY;
    for (const c of this.caps.values()) c.validUntil = Number.NEGATIVE_INFINITY;
    await this.exchange.farewell();
    for (const k of this.rates.values()) k.notifyWaiters();
    for (const c of this.caps.values()) c.waitlist.notifyAll();
  }

  // ---------------------------------------------------------------- policies

  /**
   * Sets (or replaces) a subject's limits (see docs/protocol.md#s1-4). Unchanged limits keep their
   * live state; a changed limit starts from a fresh window. Neither part: the subject is removed.
   * Throws InvalidPolicyError for an empty subject or a negative, NaN or infinite limit.
   */
  setPolicy(subject: string, rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null): void {
    this.subjects.apply(parsePolicy(subject, rateLimits, maxConcurrent));
  }

  /** Applies every entry and removes the subjects not listed; validates all entries before changing any. */
  syncPolicies(list: Iterable<PolicyEntry>): void {
    const before = [...this.rates.values()];
    this.subjects.replaceAll(list);
    for (const k of before) {
      if (k.localOnly && this.rates.get(k.subject)?.storeKey !== k.storeKey)
        this.localWindows.forget(k.storeKey);
    }
  }

  /** Forgets a subject (its store leases expire on their own; a local-only key's counts go at once). */
  remove(subject: string): void {
    const k = this.rates.get(subject);
    this.subjects.remove(subject);
    if (k?.localOnly) this.localWindows.forget(k.storeKey);
  }

  /**
   * Sets a policy family (see docs/protocol.md#s1-7): every subject that starts with `prefix` and has
   * no policy of its own gets these limits on first use; the longest matching prefix wins. Setting it
   * again with the same limits keeps live state; other limits apply to its subjects as setPolicy
   * would. Family subjects are forgotten once idle. Throws InvalidPolicyError (`prefix` not a
   * non-empty string, or a bad limit).
   */
  setFamily(prefix: string, rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null): void {
    this.subjects.setFamily(parseFamily(prefix, rateLimits, maxConcurrent));
  }

  /** Removes a family: its subjects move to the next longest matching family, or are forgotten. */
  removeFamily(prefix: string): void {
    this.subjects.removeFamily(prefix);
  }

  hasFamily(prefix: string): boolean {
    return this.subjects.families.get(prefix) !== undefined;
  }

  hasPolicy(subject: string): boolean {
    return this.subjects.has(subject);
  }

  /** Number of subjects with a policy. */
  get size(): number {
    return this.subjects.size;
  }

  // ---------------------------------------------------------------- rate decisions

  /**
   * The no-I/O decision: admission from credit, or any decision reachable without waiting on the store
   * (local-only keys, fail-static, a certainly full window). `undefined`: undecided, call `check`
   * (also for an unknown subject, which `check` calls unlimited). Never returns a promise.
   */
  tryCheck(subject: string, cost = 1): Decision | undefined {
    if (cost !== 1) checkCost(cost);
    const k = this.rates.get(subject) ?? this.subjects.adopt(subject);
    if (k === undefined) {
      if (this.phase === "closed") throw new LimiterClosedError("check");
      return this.caps.has(subject) ? UNLIMITED : undefined;
    }
    return this.admit(k, cost, ALLOW_LOCAL) ?? this.slow.decideNow(k, cost);
  }

  /**
   * Decides one request of `cost` units (default 1). Unknown subject or no rate limit: unlimited.
   * Waits on the store (at most the key's redisTimeoutMs) only when no credit covers it.
   * Rejects with InvalidCostError for a bad cost, LimiterClosedError after shutdown.
   */
  // Not async: a check that waits allocates its wait's promise only, one that does not a settled one.
  check(subject: string, cost = 1): Promise<Decision> {
    try {
      if (cost !== 1) checkCost(cost);
      const k = this.rates.get(subject) ?? this.subjects.adopt(subject);
      if (k === undefined) {
        if (this.phase === "closed") throw new LimiterClosedError("check");
        return Promise.resolve(UNLIMITED);
      }
      const d = this.admit(k, cost, ALLOW_LOCAL) ?? this.slow.decideNow(k, cost);
      return d === undefined ? this.slow.waitForSync(k, cost) : Promise.resolve(d);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `check` for a one-unit request that a `Pacer` keeps within its share of the subject's admitted
   * units (docs/protocol.md#s3-9): a sync it waits on may take units the store keeps for larger ones.
   */
  async checkShare(subject: string, cost = 1): Promise<Decision> {
    if (cost !== 1) return this.check(subject, cost);
    const k = this.rates.get(subject) ?? this.subjects.adopt(subject);
    if (k === undefined) return this.check(subject, cost);
    return (
      this.admit(k, cost, ALLOW_LOCAL) ?? this.slow.decideNow(k, cost) ?? this.slow.waitForSync(k, cost, true)
    );
  }

  /**
   * Extension: `tryCheck` without headers, for callers that need none (a gateway pacing its own calls
   * to a shared upstream limit): `true` admitted (or no rate limit), `false` denied, `undefined`
   * undecided (call `check`). Admission from credit allocates nothing.
   */
  tryAdmit(subject: string, cost = 1): boolean | undefined {
    if (cost !== 1) checkCost(cost);
    const k = this.rates.get(subject) ?? this.subjects.adopt(subject);
    if (k === undefined) {
      if (this.phase === "closed") throw new LimiterClosedError("check");
      return this.caps.has(subject) ? true : undefined;
    }
    if (this.spend(k, cost, ALLOW_LOCAL) !== NO_CREDIT) return true;
    const d = this.slow.decideNow(k, cost);
    return d === undefined ? undefined : d.kind !== "deny";
  }

  /** Admission from credit (see docs/protocol.md#s2-2) with the decision's headers. */
  private admit(k: RateKeyState, cost: number, outcome: number): Decision | undefined {
    const t = this.spend(k, cost, outcome);
    if (t === NO_CREDIT) return undefined;
    if (t < k.hdrReset * 1000) {
      const remaining = k.hdrLeft - k.admitted;
      return {
        kind: "allow",
        headers: { limit: k.headLimit, remaining: Math.max(remaining, 0), reset: k.hdrReset },
      };
    }
    return allowWithFreshHeaders(k, t);
  }

  // Off the hot path: a parked key's threshold is +inf (sync-schedule.ts), so its first admit comes here.
  private belowRefill(k: RateKeyState, now: number): void {
    if (k.parked) {
      this.schedule.unpark(k, now);
      if (!(k.credit - k.admitted < k.refillBelow)) return;
    }
    k.refillWanted = true;
    this.schedule.touch(k, now);
    this.timers.wake();
  }

  /** Spends `cost` units of credit: a clock read, a compare, an add. The store time, or NO_CREDIT. */
  private spend(k: RateKeyState, cost: number, outcome: number): number {
    const now = this.clock.monoMs();
    if (now >= k.validUntil) return NO_CREDIT;
    const t = now + this.health.offset;
    if (t >= k.boundary) return NO_CREDIT;
    const admitted = k.admitted + cost;
    if (admitted > k.credit) return NO_CREDIT;
    k.admitted = admitted;
    if (k.credit - admitted < k.refillBelow && !k.refillWanted) this.belowRefill(k, now);
    this.counts[outcome]!++;
    return t;
  }

  /**
   * Reserve then settle (see docs/protocol.md#s2-10): corrects a request admitted on an estimate by
   * `delta` = actual − estimate units. `takenAt` is `storeTime()` read when the request was decided.
   * A charge counts at once (it may leave debt: requests are denied until it is repaid); a refund
   * returns units while the smallest window `takenAt` fell in is current. The store sees the result
   * with the next sync. Returns the units applied (0: unknown subject, no rate limit, or a refund
   * whose window is over). Throws InvalidSettleError, LimiterClosedError.
   */
  settle(subject: string, delta: number, takenAt: number): number {
    checkSettle(delta, takenAt);
    if (this.phase === "closed") throw new LimiterClosedError("settle");
    const k = this.rates.get(subject);
    if (k === undefined || delta === 0) return 0;
    const now = this.clock.monoMs();
    const applied = settleKey(k, delta, takenAt, now + this.health.offset);
    if (applied > 0) this.schedule.touch(k, now);
    return applied;
  }

  /**
   * Several budgets in one decision, all or nothing (see docs/protocol.md#s2-12): e.g. requests per
   * minute and tokens per minute of one route, as two subjects. The first denial undoes the budgets
   * already taken and is returned; otherwise the allow of the budget with the least left.
   * Rejects with InvalidCostError (a bad cost), LimiterClosedError.
   */
  checkAll(budgets: readonly Budget[]): Promise<Decision> {
    return checkAll(this, budgets);
  }

  /** Store time now (Unix ms as the store's clock reads it): what `settle` takes as `takenAt`. */
  storeTime(): number {
    return this.clock.monoMs() + this.health.offset;
  }

  // ---------------------------------------------------------------- concurrency

  /**
   * Takes a concurrency slot: `unlimited` (no cap), `acquired` with a slot to release, or `denied`.
   * Rejects with LimiterClosedError after shutdown.
   */
  async acquire(subject: string): Promise<AcquireResult> {
    let c = this.caps.get(subject);
    if (c === undefined && this.subjects.families.size > 0) {
      this.subjects.adopt(subject);
      c = this.caps.get(subject);
    }
    if (c === undefined) {
      if (this.phase === "closed") throw new LimiterClosedError("acquire");
      return UNLIMITED_SLOT;
    }
    if (c.dueAt === Number.POSITIVE_INFINITY) this.schedule.touchCap(c, this.clock.monoMs());
    return this.slots.acquire(c);
  }

  /** Slots this replica holds for `subject`. */
  active(subject: string): number {
    return this.caps.get(subject)?.active ?? 0;
  }

  // ---------------------------------------------------------------- diagnostics

  /** Runs one round now: due keys (every key when forced), with a heartbeat when forced. */
  syncNow(force = false): Promise<void> {
    this.idle.sweep(this.clock.monoMs());
    return this.exchange.round(force, force);
  }

  /** Rate decisions (check, tryCheck, tryAdmit) reached this way so far; acquire() is counted apart. */
  outcomeCount(outcome: Outcome): number {
    const i = OUTCOMES.indexOf(outcome);
    return i < 0 ? 0 : this.counts[i]!;
  }

  /** acquire() decisions reached this way so far ("allow*": a slot granted, "deny*": refused). */
  slotOutcomeCount(outcome: Outcome): number {
    const i = OUTCOMES.indexOf(outcome);
    return i < 0 ? 0 : this.slotCounts[i]!;
  }

  /** Round trips that failed (store error, timeout, malformed reply). */
  syncFailures(): number {
    return this.health.failureCount;
  }

  /** Round trips attempted. */
  syncRounds(): number {
    return this.exchange.roundCount;
  }

  /** Live replicas of the service at the last heartbeat (1 until the first). */
  replicas(): number {
    return this.health.replicaCount;
  }

  hasStore(): boolean {
    return this.store !== undefined;
  }

  /** Whether the store is failing right now (the last round trip failed). */
  storeFailing(): boolean {
    return this.health.failing;
  }

  /**
   * Metrics in the names of docs/protocol.md#s1-6, recomputed at most once per second (the cached
   * snapshot otherwise). Labels are bounded; `perSubject` adds one `resil_active` series per subject.
   */
  metrics(options: { perSubject?: boolean } = {}): LimiterMetrics {
    const now = this.clock.monoMs();
    const perSubject = options.perSubject === true;
    if (perSubject || this.metricsCache === undefined || now - this.metricsAt >= 1000) {
      const snapshot = snapshotMetrics({
        service: this.service,
        unixMs: this.clock.unixMs(),
        counts: this.counts,
        slotCounts: this.slotCounts,
        replicas: this.health.replicaCount,
        perSubject,
        active: [...this.caps.values()].map((c) => ({ subject: c.subject, active: c.active })),
        sync: this.exchange.syncSeconds,
        failures: this.health.failureCount,
        store: {
          failing: this.health.failing || this.health.isDegraded(RATE_DEFAULTS, now),
          outages: this.health.failingCount,
          recoveries: this.health.recoveredCount,
          rttMs: this.health.rttMs,
        },
      });
      if (perSubject) return snapshot;
      this.metricsAt = now;
      this.metricsCache = snapshot;
    }
    return this.metricsCache;
  }
}
