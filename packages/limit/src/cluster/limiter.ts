import type { Clock, Timer } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { free, resetMs, retryAfterMs, usage } from "../store/algorithm.js";
import { StoreReplyError } from "../store/errors.js";
import { MemoryStore } from "../store/memory-store.js";
import type {
  ConcurrencyReply,
  ConcurrencyRequest,
  RateReply,
  RateRequest,
  Release,
  RoundReply,
  RoundRequest,
  Store,
} from "../store/types.js";
import {
  concurrencyCap,
  type KeyTuning,
  keyTuning,
  type LimiterOptions,
  type RateLimitConfig,
  type RatePolicy,
  type ResolvedOptions,
  ratePolicy,
  resolveOptions,
  samePolicy,
  sameTuning,
} from "./config.js";
import {
  type AcquireResult,
  ALLOW_COLD,
  ALLOW_DEGRADED,
  ALLOW_LOCAL,
  ALLOW_OVERRUN,
  ALLOW_SYNC,
  DENY_DEGRADED,
  DENY_LOCAL,
  DENY_SYNC,
  type Decision,
  OUTCOMES,
  type Outcome,
  type RateHeaders,
  type Slot,
  UNLIMITED,
} from "./decision.js";
import { InvalidCostError, InvalidPolicyError, LimiterClosedError, StoreTimeoutError } from "./errors.js";
import { concurrencyStoreKey, configHash, rateStoreKey, registryStoreKey } from "./keys.js";
import { ConcurrencyKey, RateKey } from "./keys-state.js";
import { type LimiterMetrics, SyncHistogram, snapshotMetrics } from "./metrics.js";

/** The loop wakes this long before each whole second of store time to snapshot admits (spec 2.8). */
export const BOUNDARY_LEAD_MS = 2;
/** Credit is trusted for this share of its lease, from the time its request was sent. */
export const CREDIT_TRUST = 0.75;
/** Background rounds in flight at once. */
export const MAX_ROUNDS_IN_FLIGHT = 4;
/** Concurrency leases live at least this long. */
export const MIN_CONCURRENCY_LEASE_MS = 5_000;
/** Each clock-offset sample after the first moves the offset this share of the way. */
const OFFSET_GAIN = 0.2;
// Leases of the in-process engine for local-only keys never expire in practice.
const LOCAL_LEASE_MS = 1e15;

// What spend() returns when credit cannot cover a request (store times are finite).
const NO_CREDIT = Number.NEGATIVE_INFINITY;

/** One policy of `syncPolicies`. */
export interface PolicyEntry {
  subject: string;
  rateLimits?: RateLimitConfig | null;
  maxConcurrent?: number | null;
}

// A rate request in flight and what applying (or reverting) its reply needs.
interface RateSend {
  key: RateKey;
  seq: number;
  aSend: number;
  /** `pushed` once the request is sent: max(aSend, prevPushed). */
  pushedSend: number;
  prevPushed: number;
  ewma: number;
  send: number;
  request: RateRequest;
}

interface ConcurrencySend {
  key: ConcurrencyKey;
  seq: number;
  activeSend: number;
  acquiredSend: number;
  ewma: number;
  send: number;
  request: ConcurrencyRequest;
}

type Phase = "new" | "running" | "closed";

const UNLIMITED_SLOT: AcquireResult = Object.freeze({ kind: "unlimited" });

function checkCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidCostError(cost);
}

const SETTLED: Promise<void> = Promise.resolve();

/** A held slot: releases once, locally; the next sync reports the new absolute count. */
class HeldSlot implements Slot {
  private held = true;

  constructor(private readonly key: ConcurrencyKey) {}

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.key.active = Math.max(0, this.key.active - 1);
  }

  [Symbol.dispose](): void {
    this.release();
  }
}

/**
 * A cluster-wide rate and concurrency limiter (specs/limiter-protocol.md): each replica admits from
 * credit the store granted it, with no I/O per request; a background loop pushes admits and asks for
 * more in one round trip. Without a store every key is local-only.
 */
export class Limiter {
  readonly podId: string;
  readonly service: string;
  private readonly options: ResolvedOptions;
  private readonly store: Store | undefined;
  private readonly clock: Clock;
  /** In-process engine: local-only keys and fail-static decisions, always called with an explicit time. */
  private readonly engine: MemoryStore;
  private readonly registry: string;
  private readonly rates = new Map<string, RateKey>();
  private readonly caps = new Map<string, ConcurrencyKey>();
  private readonly counts = [0, 0, 0, 0, 0, 0, 0, 0];
  /** Store ms minus local monotonic ms. */
  private offset: number;
  private offsetMeasured = false;
  private replicaCount = 1;
  private failing = false;
  private lastOk: number;
  private recoveredAt = Number.NEGATIVE_INFINITY;
  private lastHeartbeat = Number.NEGATIVE_INFINITY;
  private roundsInFlight = 0;
  private roundCount = 0;
  private failureCount = 0;
  private phase: Phase = "new";
  private tickTimer: Timer | undefined;
  private boundaryTimer: Timer | undefined;
  /** The wake 1 ms after a boundary for keys used in the closing window (opensAfterUse). */
  private openTimer: Timer | undefined;
  private wakeQueued = false;
  private shutdownDone: Promise<void> | undefined;
  private readonly syncSeconds = new SyncHistogram();
  private metricsCache: LimiterMetrics | undefined;
  private metricsAt = Number.NEGATIVE_INFINITY;
  /** The last store error (diagnostics). */
  lastStoreError: unknown;

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
    this.engine = new MemoryStore(clock);
    this.registry = registryStoreKey(this.service);
    const now = clock.monoMs();
    this.offset = clock.unixMs() - now;
    this.lastOk = now;
  }

  // ---------------------------------------------------------------- lifecycle

  /** With a store: one forced round with a heartbeat (errors ignored), then the background loop. */
  async start(): Promise<void> {
    if (this.phase === "closed") throw new LimiterClosedError("start");
    if (this.phase === "running") return;
    this.phase = "running";
    if (this.store === undefined) return;
    await this.round(true, true);
    if (this.phase !== "running") return;
    this.armTick();
    this.armBoundary();
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
    this.tickTimer?.cancel();
    this.boundaryTimer?.cancel();
    this.openTimer?.cancel();
    for (const k of this.rates.values()) k.validUntil = Number.NEGATIVE_INFINITY;
    for (const c of this.caps.values()) c.validUntil = Number.NEGATIVE_INFINITY;
    if (this.store !== undefined) {
      const now = this.clock.monoMs();
      const rates = [...this.rates.values()].filter((k) => !k.localOnly && this.claimRate(k));
      const caps = [...this.caps.values()].filter((c) => !c.localOnly && this.claimCap(c));
      await this.exchange(rates, caps, undefined, [], now);
      const releases: Release[] = [];
      for (const k of this.rates.values())
        if (!k.localOnly) releases.push({ key: k.storeKey, pod: this.podId });
      for (const c of this.caps.values()) {
        if (!c.localOnly && c.active === 0) releases.push({ key: c.storeKey, pod: this.podId });
      }
      await this.exchange([], [], "leave", releases, this.clock.monoMs());
    }
    for (const k of this.rates.values()) k.waitlist.notifyAll();
    for (const c of this.caps.values()) c.waitlist.notifyAll();
  }

  // ---------------------------------------------------------------- policies

  /**
   * Sets (or replaces) a subject's limits (spec 1.4). Unchanged limits keep their live state; a
   * changed limit starts from a fresh window. Neither part: the subject is removed.
   * Throws InvalidPolicyError for an empty subject or a negative, NaN or infinite limit.
   */
  setPolicy(subject: string, rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null): void {
    this.applyPolicy(subject, ratePolicy(rateLimits), concurrencyCap(maxConcurrent), rateLimits);
  }

  /** Applies every entry and removes the subjects not listed; validates all entries before changing any. */
  syncPolicies(list: Iterable<PolicyEntry>): void {
    const parsed = [...list].map((e) => {
      checkSubject(e.subject);
      return {
        e,
        policy: ratePolicy(e.rateLimits),
        max: concurrencyCap(e.maxConcurrent),
      };
    });
    const listed = new Set<string>();
    for (const { e, policy, max } of parsed) {
      listed.add(e.subject);
      this.applyPolicy(e.subject, policy, max, e.rateLimits);
    }
    for (const subject of [...this.rates.keys(), ...this.caps.keys()]) {
      if (!listed.has(subject)) this.remove(subject);
    }
  }

  /** Forgets a subject (its store leases expire on their own). */
  remove(subject: string): void {
    const k = this.rates.get(subject);
    if (k !== undefined) {
      this.rates.delete(subject);
      k.validUntil = Number.NEGATIVE_INFINITY;
    }
    this.caps.delete(subject);
  }

  hasPolicy(subject: string): boolean {
    return this.rates.has(subject) || this.caps.has(subject);
  }

  /** Number of subjects with a policy. */
  get size(): number {
    let n = this.rates.size;
    for (const subject of this.caps.keys()) if (!this.rates.has(subject)) n++;
    return n;
  }

  private applyPolicy(
    subject: string,
    policy: RatePolicy | undefined,
    max: number,
    cfg: RateLimitConfig | null | undefined,
  ): void {
    checkSubject(subject);
    const hasStore = this.store !== undefined;
    if (policy === undefined) this.rates.delete(subject);
    else {
      const localOnly = policy.localAllowance >= 1 || !hasStore;
      const hash = configHash(policy.alg, policy.windows);
      const key = rateStoreKey(this.service, subject, hash);
      const old = this.rates.get(subject);
      const reuse =
        old !== undefined &&
        old.storeKey === key &&
        old.localOnly === localOnly &&
        samePolicy(old.policy, policy);
      if (!reuse) this.rates.set(subject, new RateKey(subject, key, policy, localOnly));
    }
    if (max === 0) this.caps.delete(subject);
    else {
      const tuning = keyTuning(cfg);
      const localOnly = tuning.localAllowance >= 1 || !hasStore;
      const old = this.caps.get(subject);
      const reuse =
        old !== undefined && old.max === max && old.localOnly === localOnly && sameTuning(old.tuning, tuning);
      if (!reuse) {
        this.caps.set(
          subject,
          new ConcurrencyKey(
            subject,
            concurrencyStoreKey(this.service, subject, max),
            max,
            tuning,
            localOnly,
          ),
        );
      }
    }
  }

  // ---------------------------------------------------------------- rate decisions

  /**
   * The no-I/O decision: admission from credit, or any decision reachable without waiting on the store
   * (local-only keys, fail-static, a certainly full window). `undefined`: undecided, call `check`
   * (also for an unknown subject, which `check` calls unlimited). Never returns a promise.
   */
  tryCheck(subject: string, cost = 1): Decision | undefined {
    if (cost !== 1) checkCost(cost);
    const k = this.rates.get(subject);
    if (k === undefined) return this.caps.has(subject) ? UNLIMITED : undefined;
    return this.admit(k, cost, ALLOW_LOCAL) ?? this.decideNow(k, cost);
  }

  /**
   * Decides one request of `cost` units (default 1). Unknown subject or no rate limit: unlimited.
   * Waits on the store (at most the key's redisTimeoutMs) only when no credit covers it.
   * Rejects with InvalidCostError for a bad cost, LimiterClosedError after shutdown.
   */
  async check(subject: string, cost = 1): Promise<Decision> {
    if (cost !== 1) checkCost(cost);
    const k = this.rates.get(subject);
    if (k === undefined) {
      if (this.phase === "closed") throw new LimiterClosedError("check");
      return UNLIMITED;
    }
    return this.admit(k, cost, ALLOW_LOCAL) ?? this.decideNow(k, cost) ?? this.waitForSync(k, cost);
  }

  /**
   * Extension: `tryCheck` without headers, for callers that need none (a gateway pacing its own calls
   * to a shared upstream limit): `true` admitted (or no rate limit), `false` denied, `undefined`
   * undecided (call `check`). Admission from credit allocates nothing.
   */
  tryAdmit(subject: string, cost = 1): boolean | undefined {
    if (cost !== 1) checkCost(cost);
    const k = this.rates.get(subject);
    if (k === undefined) return this.caps.has(subject) ? true : undefined;
    if (this.spend(k, cost, ALLOW_LOCAL) !== NO_CREDIT) return true;
    const d = this.decideNow(k, cost);
    return d === undefined ? undefined : d.kind !== "deny";
  }

  /** Admission from credit (spec 2.2) with the decision's headers. */
  private admit(k: RateKey, cost: number, outcome: number): Decision | undefined {
    const t = this.spend(k, cost, outcome);
    if (t === NO_CREDIT) return undefined;
    if (t < k.hdrResetMs) {
      const remaining = k.hdrRemaining - (k.admitted - k.hdrAdmitted);
      return {
        kind: "allow",
        headers: { limit: k.headLimit, remaining: Math.max(remaining, 0), reset: k.hdrReset },
      };
    }
    return this.allowFresh(k, t);
  }

  /** Spends `cost` units of credit: a clock read, a compare, an add. The store time, or NO_CREDIT. */
  private spend(k: RateKey, cost: number, outcome: number): number {
    const now = this.clock.monoMs();
    if (now >= k.validUntil) return NO_CREDIT;
    const t = now + this.offset;
    if (t >= k.boundary) return NO_CREDIT;
    const admitted = k.admitted + cost;
    if (admitted > k.credit) return NO_CREDIT;
    k.admitted = admitted;
    if (k.credit - admitted < k.half && !k.wanted) {
      k.wanted = true;
      this.wake();
    }
    this.counts[outcome]!++;
    return t;
  }

  // Allow with headers computed in full, refreshing the snapshot.
  private allowFresh(k: RateKey, t: number): Decision {
    this.snapshotHeaders(k, t);
    return { kind: "allow", headers: { limit: k.headLimit, remaining: k.hdrRemaining, reset: k.hdrReset } };
  }

  /** The slow path up to waiting (spec 2.3): `undefined` means wait for a sync. */
  private decideNow(k: RateKey, cost: number): Decision | undefined {
    if (this.phase === "closed") throw new LimiterClosedError("check");
    if (cost > k.minCapacity) return this.denyOverCapacity(k);
    const now = this.clock.monoMs();
    if (k.localOnly) return this.decideLocalOnly(k, cost, now);
    if (this.isDegraded(k.policy, now)) return this.decideDegraded(k, cost, now);
    if (now < k.exhaustedUntil) return this.deny(k, cost, now, DENY_LOCAL, true);
    if (k.view.fresh && this.certainlyFull(k, cost, now + this.offset)) {
      if (now - k.view.at <= k.policy.cacheTtlMs) {
        this.wake();
        return this.deny(k, cost, now, DENY_LOCAL, true);
      }
      return undefined;
    }
    if (now >= k.validUntil && !k.syncing) return this.tryColdCredit(k, cost, now);
    return undefined;
  }

  /** Some window cannot fit `cost` more units beside the admits the store has not seen. */
  private certainlyFull(k: RateKey, cost: number, t: number): boolean {
    const extra = k.localExtra();
    for (let i = 0; i < k.windows.length; i++) {
      if (free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - extra < Math.max(cost, 1)) return true;
    }
    return false;
  }

  /**
   * An unreserved share of the limit for a key without credit (spec 2.4), then an immediate sync.
   * Extension: a view older than cacheTtlMs grants none (others may have spent the window since), so
   * cold credit never pushes a window over its limit once the key has been synced.
   */
  private tryColdCredit(k: RateKey, cost: number, now: number): Decision | undefined {
    if (this.isRecovering(k.policy, now)) return undefined;
    if (k.view.fresh && now - k.view.at > k.policy.cacheTtlMs) return undefined;
    const n = Math.max(this.replicaCount, 1);
    const a = Math.min(k.policy.localAllowance, 1);
    const t = now + this.offset;
    const extra = k.localExtra();
    let c0 = Number.POSITIVE_INFINITY;
    for (let i = 0; i < k.windows.length; i++) {
      const w = k.windows[i]!;
      const cap = k.capacities[i]!;
      let room = Math.min(Math.floor((a * cap) / n), Math.ceil((cap * k.policy.syncIntervalMs) / w.windowMs));
      if (k.view.fresh) room = Math.min(room, Math.floor(free(k.alg, w, k.view.windows[i]!, t) - extra));
      c0 = Math.min(c0, room);
    }
    if (!(c0 > 0)) return undefined;
    k.credit = k.admitted + c0;
    k.half = Math.floor(c0 / 2);
    k.validUntil = now + CREDIT_TRUST * this.options.leaseTtlMs;
    k.creditWindowEnd = windowEnd(t, k.minWindowMs);
    const decision = this.admit(k, cost, ALLOW_COLD);
    if (!k.syncing) void this.syncRate(k);
    return decision;
  }

  /** Waits for sync replies, at most redisTimeoutMs (spec 2.5). */
  private async waitForSync(k: RateKey, cost: number): Promise<Decision> {
    const deadline = this.clock.monoMs() + k.policy.redisTimeoutMs;
    const registered = k.sendSeq;
    let timedOut = false;
    k.waiters += cost;
    try {
      for (;;) {
        const left = deadline - this.clock.monoMs();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        const woken = this.nextReply(k.waitlist, left);
        if (!k.syncing) void this.syncRate(k);
        if (!(await woken)) {
          timedOut = true;
          break;
        }
        if (this.phase === "closed") throw new LimiterClosedError("check");
        const d = this.admit(k, cost, ALLOW_SYNC);
        if (d !== undefined) return d;
        if (k.doneSeq > registered || this.failing) break;
      }
    } finally {
      k.waiters -= cost;
    }
    const d = this.admit(k, cost, ALLOW_SYNC);
    if (d !== undefined) return d;
    const now = this.clock.monoMs();
    if (timedOut || this.failing) {
      if (!this.certainlyFull(k, cost, now + this.offset)) {
        k.admitted += cost;
        this.counts[ALLOW_OVERRUN]!++;
        return this.allowFresh(k, now + this.offset);
      }
      return this.deny(k, cost, now, DENY_LOCAL, false);
    }
    return this.deny(k, cost, now, DENY_SYNC, true);
  }

  /** Resolves true on the key's next reply (or failure), false after `ms` (twice `ms` when blocked). */
  private nextReply(waitlist: RateKey["waitlist"], ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const due = this.clock.monoMs() + ms;
      let extended = false;
      const expire = () => {
        // Later than the whole budget means the event loop was blocked (a GC pause, a busy callback):
        // the time went to this process, not to the store, and timers run before sockets are read, so
        // a reply may already be waiting. Give the store its budget once more before a timeout.
        if (this.clock.monoMs() - due > ms && !extended) {
          extended = true;
          timer = this.clock.setTimer(ms, () => resolve(false), { unref: true });
        } else resolve(false);
      };
      let timer = this.clock.setTimer(ms, expire, { unref: true });
      waitlist.add(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }

  /** A denial with Retry-After from the view (spec 2.6). */
  private deny(k: RateKey, cost: number, now: number, outcome: number, countReservations: boolean): Decision {
    const t = now + this.offset;
    const reserved =
      k.localExtra() +
      (countReservations ? k.view.reservedOthers : 0) +
      (Math.max(this.replicaCount, 1) - 1) +
      Math.max(0, cost - 1);
    let ms = 1;
    for (let i = 0; i < k.windows.length; i++) {
      ms = Math.max(ms, retryAfterMs(k.alg, k.windows[i]!, k.view.windows[i]!, t, reserved));
    }
    k.denied++;
    k.usedWindow = Math.floor(t / k.minWindowMs);
    this.counts[outcome]!++;
    return this.denial(k, t, ms);
  }

  private denial(k: RateKey, t: number, retryMs: number): Decision {
    return {
      kind: "deny",
      reason: "limited",
      headers: {
        limit: k.headLimit,
        remaining: 0,
        reset: this.resetAt(k, t),
        retryAfter: Math.max(1, Math.ceil(retryMs / 1000)),
      },
    };
  }

  /** A cost no window can ever hold: denied at once, with no Retry-After (waiting cannot help). */
  private denyOverCapacity(k: RateKey): Decision {
    const t = this.clock.monoMs() + this.offset;
    this.counts[DENY_LOCAL]!++;
    const headers: RateHeaders = {
      limit: k.headLimit,
      remaining: this.remainingAt(k, t, k.localExtra()),
      reset: this.resetAt(k, t),
    };
    return { kind: "deny", reason: "costExceedsLimit", headers };
  }

  /** Local-only keys (allowance >= 1, or no store): the in-process engine on the real key (spec 2.9). */
  private decideLocalOnly(k: RateKey, cost: number, now: number): Decision {
    const t = now + this.offset;
    const pending = k.admitted - k.pushed;
    const crossed = k.boundary > 0 && t >= k.boundary;
    const reply = this.engine.rate(
      {
        key: k.storeKey,
        alg: k.alg,
        windows: k.windows as RateRequest["windows"],
        pod: this.podId,
        hits: crossed ? 0 : pending,
        hitsOld: crossed ? pending : 0,
        tOld: k.boundary - 1,
        unused: k.unused(),
        want: Math.max(k.minCapacity, 1),
        need: 0,
        allowance: 1,
        replicas: 1,
        leaseTtlMs: LOCAL_LEASE_MS,
      },
      t,
    );
    k.view = { at: now, windows: reply.windows, reservedOthers: 0, fresh: true };
    k.pushed = k.admitted;
    k.credit = k.admitted + reply.kept + reply.granted;
    k.half = 0;
    k.validUntil = Number.POSITIVE_INFINITY;
    k.boundary = (Math.floor(t / k.minWindowMs) + 1) * k.minWindowMs;
    this.snapshotHeaders(k, t);
    return this.admit(k, cost, ALLOW_LOCAL) ?? this.deny(k, cost, now, DENY_LOCAL, false);
  }

  /** Store unavailable longer than cacheTtlMs (spec 4): fail-static on limit / N, or fail-open. */
  private decideDegraded(k: RateKey, cost: number, now: number): Decision {
    const t = now + this.offset;
    if (this.options.onStoreUnavailable === "allow") {
      k.admitted += cost;
      this.counts[ALLOW_DEGRADED]!++;
      return this.allowFresh(k, t);
    }
    const windows = k.degradedWindows(Math.max(this.replicaCount, 1));
    const ask = (need: number) =>
      this.engine.rate(
        {
          key: `${k.storeKey}:local`,
          alg: k.alg,
          windows,
          pod: this.podId,
          hits: 0,
          hitsOld: 0,
          tOld: 0,
          unused: 0,
          want: 0,
          need,
          allowance: 1,
          replicas: 1,
          leaseTtlMs: 1,
        },
        t,
      );
    // A multi-unit cost is admitted whole or not at all: look first, then take.
    let reply = ask(cost === 1 ? 1 : 0);
    const fits =
      cost === 1 ? reply.direct >= 1 : windows.every((w, i) => free(k.alg, w, reply.windows[i]!, t) >= cost);
    if (fits && cost !== 1) reply = ask(cost);
    if (fits && reply.direct >= cost) {
      k.admitted += cost;
      this.counts[ALLOW_DEGRADED]!++;
      return this.allowFresh(k, t);
    }
    let ms = 1;
    windows.forEach((w, i) => {
      ms = Math.max(ms, retryAfterMs(k.alg, w, reply.windows[i]!, t, Math.max(0, cost - 1)));
    });
    k.denied++;
    this.counts[DENY_DEGRADED]!++;
    return this.denial(k, t, ms);
  }

  // ---------------------------------------------------------------- headers

  private remainingAt(k: RateKey, t: number, extra: number): number {
    let least = Number.POSITIVE_INFINITY;
    for (let i = 0; i < k.windows.length; i++) {
      least = Math.min(least, free(k.alg, k.windows[i]!, k.view.windows[i]!, t));
    }
    return Math.floor(Math.max(0, least - extra));
  }

  private resetAt(k: RateKey, t: number): number {
    return Math.ceil((t + resetMs(k.alg, k.windows[k.head]!, k.view.windows[k.head]!, t)) / 1000);
  }

  private snapshotHeaders(k: RateKey, t: number): void {
    k.hdrAdmitted = k.admitted;
    k.hdrRemaining = this.remainingAt(k, t, k.localExtra());
    k.hdrReset = this.resetAt(k, t);
    k.hdrResetMs = k.hdrReset * 1000;
  }

  // ---------------------------------------------------------------- concurrency

  /**
   * Takes a concurrency slot: `unlimited` (no cap), `acquired` with a slot to release, or `denied`.
   * Rejects with LimiterClosedError after shutdown.
   */
  async acquire(subject: string): Promise<AcquireResult> {
    const c = this.caps.get(subject);
    if (c === undefined) {
      if (this.phase === "closed") throw new LimiterClosedError("acquire");
      return UNLIMITED_SLOT;
    }
    return this.take(c, ALLOW_LOCAL) ?? this.acquireNow(c) ?? this.waitForSlot(c);
  }

  /** Slots this replica holds for `subject`. */
  active(subject: string): number {
    return this.caps.get(subject)?.active ?? 0;
  }

  private take(c: ConcurrencyKey, outcome: number): AcquireResult | undefined {
    if (this.clock.monoMs() >= c.validUntil || c.active >= c.allowed) return undefined;
    return this.granted(c, outcome);
  }

  private granted(c: ConcurrencyKey, outcome: number): AcquireResult {
    c.active++;
    c.acquired++;
    this.counts[outcome]!++;
    return { kind: "acquired", slot: new HeldSlot(c) };
  }

  private slotDenied(c: ConcurrencyKey, outcome: number): AcquireResult {
    this.counts[outcome]!++;
    return { kind: "denied", max: c.max, retryAfter: 1 };
  }

  private acquireNow(c: ConcurrencyKey): AcquireResult | undefined {
    if (this.phase === "closed") throw new LimiterClosedError("acquire");
    const now = this.clock.monoMs();
    if (c.localOnly) return this.slotDenied(c, DENY_LOCAL);
    if (this.isDegraded(c.tuning, now)) {
      if (this.options.onStoreUnavailable === "allow") return this.granted(c, ALLOW_DEGRADED);
      const cap = Math.max(1, Math.ceil(c.max / Math.max(this.replicaCount, 1)));
      return c.active < cap ? this.granted(c, ALLOW_DEGRADED) : this.slotDenied(c, DENY_DEGRADED);
    }
    if (now >= c.validUntil && !c.syncing && !this.isRecovering(c.tuning, now)) {
      const share = Math.min(c.tuning.localAllowance, 1) * (c.max - c.others);
      const c0 = Math.floor(share / Math.max(this.replicaCount, 1));
      if (c0 > 0) {
        c.allowed = c.active + c0;
        c.validUntil = now + CREDIT_TRUST * this.options.leaseTtlMs;
        const result = this.take(c, ALLOW_COLD);
        void this.syncCap(c);
        return result;
      }
    }
    return undefined;
  }

  private async waitForSlot(c: ConcurrencyKey): Promise<AcquireResult> {
    const deadline = this.clock.monoMs() + c.tuning.redisTimeoutMs;
    const registered = c.sendSeq;
    c.waiters++;
    try {
      for (;;) {
        const left = deadline - this.clock.monoMs();
        if (left <= 0) break;
        const woken = this.nextReply(c.waitlist, left);
        if (!c.syncing) void this.syncCap(c);
        if (!(await woken)) break;
        if (this.phase === "closed") throw new LimiterClosedError("acquire");
        const r = this.take(c, ALLOW_SYNC);
        if (r !== undefined) return r;
        if (c.doneSeq > registered || this.failing) break;
      }
    } finally {
      c.waiters--;
    }
    return this.take(c, ALLOW_SYNC) ?? this.slotDenied(c, DENY_SYNC);
  }

  private concurrencyLeaseMs(): number {
    return Math.max(this.options.leaseTtlMs, MIN_CONCURRENCY_LEASE_MS);
  }

  // ---------------------------------------------------------------- health

  /**
   * Extension: as the store starts failing, credit is trusted only until the window it was taken in
   * ends. Fail-static's local share knows nothing of it, so credit carried into a later window would
   * be admitted on top of the share.
   */
  private distrustCredit(): void {
    for (const k of this.rates.values()) {
      if (!k.localOnly) k.validUntil = Math.min(k.validUntil, k.creditWindowEnd - this.offset);
    }
  }

  /** The store has been failing longer than the key's cacheTtlMs. */
  private isDegraded(tuning: KeyTuning, now: number): boolean {
    return this.failing && now - this.lastOk > tuning.cacheTtlMs;
  }

  /** Failing, or just recovered: no new credit is asked for or taken (spec 4). */
  private isRecovering(tuning: KeyTuning, now: number): boolean {
    return this.failing || now - this.recoveredAt < 2 * Math.max(tuning.syncIntervalMs, this.options.tickMs);
  }

  // ---------------------------------------------------------------- sync engine

  /** Runs one round now: due keys (every key when forced), with a heartbeat when forced. */
  syncNow(force = false): Promise<void> {
    return this.round(force, force);
  }

  /** Asks the loop for a round soon (the early sync of a key below half credit). */
  private wake(): void {
    if (this.phase !== "running" || this.wakeQueued) return;
    this.wakeQueued = true;
    queueMicrotask(() => {
      this.wakeQueued = false;
      this.backgroundRound();
    });
  }

  private armTick(): void {
    this.tickTimer = this.clock.setTimer(
      this.options.tickMs,
      () => {
        if (this.phase !== "running") return;
        this.armTick();
        this.backgroundRound();
      },
      { unref: true },
    );
  }

  /** Sleeps until BOUNDARY_LEAD_MS before the next whole second of store time (spec 2.8). */
  private armBoundary(): void {
    const t = this.clock.monoMs() + this.offset;
    let b = Math.floor(t / 1000) * 1000 + 1000;
    if (b - BOUNDARY_LEAD_MS <= t) b += 1000;
    this.boundaryTimer = this.clock.setTimer(
      b - BOUNDARY_LEAD_MS - t,
      () => {
        if (this.phase !== "running") return;
        const starved = this.snapshotBoundary(b);
        this.armBoundary();
        this.backgroundRound();
        // Keys used in the closing window ask for the new one's budget right as it opens.
        if (starved) {
          this.openTimer = this.clock.setTimer(BOUNDARY_LEAD_MS + 1, () => this.backgroundRound(), {
            unref: true,
          });
        }
      },
      { unref: true },
    );
  }

  /**
   * Marks admits made before boundary `b` so the next push charges them to the window they were in.
   * True when some key was used in the window that `b` closes (see opensAfterUse).
   */
  private snapshotBoundary(b: number): boolean {
    let starved = false;
    for (const k of this.rates.values()) {
      if (k.localOnly || b % k.minWindowMs !== 0) continue;
      if (k.admitted > k.pushed) {
        k.oldT = b - BOUNDARY_LEAD_MS;
        k.oldA = k.admitted;
      }
      if (k.usedWindow === b / k.minWindowMs - 1 || k.admitted > k.pushed) starved = true;
    }
    return starved;
  }

  private backgroundRound(): void {
    if (this.roundsInFlight >= MAX_ROUNDS_IN_FLIGHT) return;
    this.roundsInFlight++;
    this.round(false, false).finally(() => {
      this.roundsInFlight--;
    });
  }

  /** Collects due keys and runs one round trip (spec 3.1); a round with nothing to say sends nothing. */
  // Not async: a round with nothing to send (most ticks) returns a settled promise without allocating one.
  private round(force: boolean, heartbeat: boolean): Promise<void> {
    if (this.store === undefined || this.phase === "closed") return SETTLED;
    const now = this.clock.monoMs();
    const hbStrict = heartbeat || now - this.lastHeartbeat >= this.options.heartbeatMs;
    const limit = this.options.maxKeysPerRound;
    const rates: RateKey[] = [];
    const caps: ConcurrencyKey[] = [];
    this.collectDue(rates, caps, now, 1, force, limit);
    if (rates.length + caps.length > 0 || hbStrict) this.collectDue(rates, caps, now, 0.5, force, limit);
    if (rates.length + caps.length === 0 && !hbStrict) return SETTLED;
    const withHeartbeat = hbStrict || now - this.lastHeartbeat >= this.options.heartbeatMs / 2;
    return this.exchange(rates, caps, withHeartbeat ? "join" : undefined, [], now);
  }

  // Claims the keys due at `slack` (all when forcing), up to `limit` per round. A method, not a closure:
  // round() runs every tick.
  private collectDue(
    rates: RateKey[],
    caps: ConcurrencyKey[],
    now: number,
    slack: number,
    force: boolean,
    limit: number,
  ): void {
    for (const k of this.rates.values()) {
      if (rates.length + caps.length >= limit) return;
      if (!k.localOnly && !k.syncing && (force || this.rateDue(k, now, slack)) && this.claimRate(k))
        rates.push(k);
    }
    for (const c of this.caps.values()) {
      if (rates.length + caps.length >= limit) return;
      if (!c.localOnly && !c.syncing && (force || this.capDue(c, now, slack)) && this.claimCap(c))
        caps.push(c);
    }
  }

  // Marks a key as synced by the caller; false if a sync is already in flight.
  private claimRate(k: RateKey): boolean {
    if (k.syncing) return false;
    k.syncing = true;
    return true;
  }

  private claimCap(c: ConcurrencyKey): boolean {
    if (c.syncing) return false;
    c.syncing = true;
    return true;
  }

  /** A kick: sync one rate key now (bypasses the round limit; one sync per key in flight). */
  private async syncRate(k: RateKey): Promise<void> {
    if (this.store === undefined || this.phase === "closed" || !this.claimRate(k)) return;
    await this.exchange([k], [], undefined, [], this.clock.monoMs());
  }

  private async syncCap(c: ConcurrencyKey): Promise<void> {
    if (this.store === undefined || this.phase === "closed" || !this.claimCap(c)) return;
    await this.exchange([], [c], undefined, [], this.clock.monoMs());
  }

  /** Load of a key: the fullest window, counting admits the store has not seen. */
  private loadFraction(k: RateKey, t: number): number {
    const extra = k.localExtra();
    let load = 0;
    for (let i = 0; i < k.windows.length; i++) {
      const cap = k.capacities[i]!;
      load = Math.max(load, (usage(k.alg, k.windows[i]!, k.view.windows[i]!, t) + extra) / Math.max(cap, 1));
    }
    return load;
  }

  /** When a rate key is due for a sync (spec 2.7); `slack` < 1 lets nearly due keys ride along. */
  private rateDue(k: RateKey, now: number, slack: number): boolean {
    if (k.syncing) return false;
    if (k.waiters > 0) return true;
    // Paced (exhausted): asking for more credit before exhaustedUntil gets nothing.
    if (k.wanted && !(now < k.exhaustedUntil)) return true;
    if (this.opensAfterUse(k, now)) return true;
    // Exhausted with nothing to push: the store said when a unit frees, asking sooner gets nothing.
    if (now < k.exhaustedUntil && k.admitted <= k.pushed && k.oldA < 0) return false;
    const since = now - k.lastSync;
    if (k.admitted <= k.pushed && k.oldA < 0 && k.denied === 0) {
      const unused = k.unused();
      return (
        unused > 1 &&
        now < k.validUntil &&
        since >= this.options.slowSyncMs * slack &&
        k.ewma * this.options.slowSyncMs * 2 < unused
      );
    }
    const busy = k.denied > 0 || this.loadFraction(k, now + this.offset) > 0.5;
    const interval = busy
      ? k.policy.syncIntervalMs
      : Math.max(this.options.slowSyncMs, k.policy.syncIntervalMs);
    return since >= interval * slack;
  }

  /**
   * Extension (fairness): a key used in the previous window and out of credit syncs once as soon as
   * the next window opens, so a quiet replica asks for the fresh budget alongside the busy ones
   * instead of after them.
   */
  private opensAfterUse(k: RateKey, now: number): boolean {
    const w = Math.floor((now + this.offset) / k.minWindowMs);
    const used = k.usedWindow === w - 1 || (k.admitted > k.pushed && k.usedWindow < w);
    return used && k.unused() < 1 && Math.floor((k.lastSync + this.offset) / k.minWindowMs) < w;
  }

  private capDue(c: ConcurrencyKey, now: number, slack: number): boolean {
    if (c.syncing) return false;
    if (c.waiters > 0) return true;
    const acquiring = c.acquired > c.acquiredAtSync;
    if (!acquiring && c.active === 0 && c.allowed <= c.active) return false;
    const busy = acquiring && (c.active + c.others) * 2 > c.max;
    const interval = busy
      ? c.tuning.syncIntervalMs
      : Math.max(this.options.slowSyncMs, c.tuning.syncIntervalMs);
    return now - c.lastSync >= interval * slack;
  }

  /** Builds a claimed key's rate request (spec 3.2) and moves its admits to in flight. */
  private buildRate(k: RateKey, now: number): RateSend {
    const a = k.admitted;
    const p = k.pushed;
    // pushed > admitted while a direct unit no waiter took is unspent: the store counted it already,
    // so nothing is pending and pushed must not move back (it would be charged twice).
    const pending = Math.max(0, a - p);
    const old = k.oldA > p ? k.oldA - p : 0;
    const hitsOld = Math.min(old, pending);
    const hits = pending - hitsOld;
    // Extension: requests denied since the last sync count as demand, so a replica denied at the end
    // of a fixed window asks for more than its few admits as the next one opens.
    const sample = hits + hitsOld + k.denied;
    if (sample > 0) k.usedWindow = Math.max(k.usedWindow, Math.floor((now + this.offset) / k.minWindowMs));
    const ewma =
      k.lastSync === Number.NEGATIVE_INFINITY
        ? Math.max(sample, 1) / k.policy.syncIntervalMs
        : k.ewma === 0
          ? sample / Math.max(1, now - k.lastSync)
          : (k.ewma + sample / Math.max(1, now - k.lastSync)) / 2;
    const busy = k.denied > 0 || this.loadFraction(k, now + this.offset) > 0.5;
    const horizon = busy ? k.policy.syncIntervalMs : this.options.slowSyncMs;
    const recovering = this.isRecovering(k.policy, now);
    const target = Math.min(Math.max(Math.ceil(ewma * horizon * 3), 1), Math.max(k.minCapacity, 1));
    const unused = Math.min(k.unused(), target);
    const request: RateRequest = {
      key: k.storeKey,
      alg: k.alg,
      windows: k.windows as RateRequest["windows"],
      pod: this.podId,
      hits,
      hitsOld,
      tOld: hitsOld > 0 ? k.oldT : 0,
      unused,
      want: recovering ? 0 : target - unused,
      need: recovering ? 0 : k.waiters,
      batch: recovering || k.waiters === 0 ? 0 : this.batchSize(k),
      allowance: Math.min(k.policy.localAllowance, 1),
      replicas: Math.max(this.replicaCount, 1),
      leaseTtlMs: this.options.leaseTtlMs,
    };
    k.sendSeq++;
    k.pushed = Math.max(a, p);
    k.inflight = hits + hitsOld;
    k.lastSync = now;
    return {
      key: k,
      seq: k.sendSeq,
      aSend: a,
      pushedSend: k.pushed,
      prevPushed: p,
      ewma,
      send: now,
      request,
    };
  }

  /**
   * Extension: how often a replica that keeps running out of credit asks for more: half a sync
   * interval, and at most replicas x the smallest window / 100: a sliding window loses about twice
   * (interval / (replicas x window)) of its limit to credit held between asks (measured, simulation).
   */
  private pacingMs(k: RateKey): number {
    return Math.min(k.policy.syncIntervalMs / 2, (k.minWindowMs * Math.max(this.replicaCount, 1)) / 100);
  }

  /**
   * Extension: the credit an out-of-credit replica asks for at once: its even share of what frees in
   * one pacing interval. 0: no batch (the spec's grant step), below 2 units or for a fixed window,
   * which frees nothing until it ends.
   */
  private batchSize(k: RateKey): number {
    if (k.alg === 0) return 0;
    const n = Math.max(this.replicaCount, 1);
    const pace = this.pacingMs(k);
    let share = Number.POSITIVE_INFINITY;
    for (const w of k.windows) share = Math.min(share, (w.limit * pace) / (w.windowMs * n));
    const batch = Math.min(Math.floor(share), k.minCapacity);
    return batch >= 2 ? batch : 0;
  }

  /** Applies a rate reply (spec 3.3). */
  private applyRate(s: RateSend, reply: RateReply, recv: number): void {
    const k = s.key;
    const t = recv + this.offset;
    k.view = { at: recv, windows: reply.windows, reservedOthers: reply.others, fresh: true };
    k.pushed = s.pushedSend + reply.direct;
    k.inflight = 0;
    const own = reply.kept + reply.granted + reply.direct;
    k.credit = s.aSend + own;
    if (this.options.lastMile === "local" && own === 0 && reply.avail >= 1) k.credit++;
    k.half = Math.floor((reply.kept + reply.granted) / 2);
    k.validUntil = this.phase === "closed" ? k.validUntil : s.send + CREDIT_TRUST * this.options.leaseTtlMs;
    k.creditWindowEnd = windowEnd(t, k.minWindowMs);
    k.wanted = false;
    k.denied = 0;
    k.ewma = s.ewma;
    const batch = s.request.batch ?? 0;
    const starved = own === 0 && k.credit === s.aSend && reply.avail < 1;
    // Extension: an ask for a batch is paced like one that got nothing: what it got is spent first,
    // then requests are denied until another batch could be free (else one ask per few units).
    const paced = !starved && batch > 0;
    if (starved || paced) {
      // Extension: a replica that asked with requests waiting now holds a ticket (store/turns.ts): the
      // units kept for it are in no one else's reach, so it waits only for those ahead (in `others`),
      // not for one unseen cold admit per other replica; a longer wait would leave its unit idle.
      const ticketed = s.request.need > 0;
      // Extension: and for the rest of the batch it asked for (older tickets held a batch each in the
      // store), so one round trip fetches a pacing interval's share.
      const ahead = ticketed ? Math.max(batch - 1, 0) : Math.max(this.replicaCount, 1) - 1;
      const held = paced ? reply.kept + reply.granted : 0;
      const reserved = reply.others + k.localExtra() + ahead + held;
      let ms = 1;
      for (let i = 0; i < k.windows.length; i++) {
        ms = Math.max(ms, retryAfterMs(k.alg, k.windows[i]!, reply.windows[i]!, t, reserved));
      }
      // a batch is one pacing interval's share: asking later than that would leave units idle
      let wait = Math.min(Math.max(ms, 1), batch > 0 ? this.pacingMs(k) : k.policy.syncIntervalMs);
      // Extension: a fixed window (code 0) with no unit left frees none before it ends, whoever holds
      // credit, so waiting for its end saves a round trip every syncIntervalMs. Capped at the quiet
      // key's period, so a denial never rests on a view older than that (a store that lost its data).
      if (k.alg === 0) {
        const cap = Math.max(this.options.slowSyncMs, k.policy.syncIntervalMs);
        for (let i = 0; i < k.windows.length; i++) {
          const w = k.windows[i]!;
          const st = reply.windows[i]!;
          if (free(0, w, st, t) < 1) wait = Math.max(wait, Math.min(retryAfterMs(0, w, st, t, 0), cap));
        }
      }
      k.exhaustedUntil = recv + wait;
    } else {
      k.exhaustedUntil = Number.NEGATIVE_INFINITY;
    }
    k.doneSeq = s.seq;
    if (k.oldA >= 0 && k.oldA <= s.aSend) k.oldA = -1;
    this.snapshotHeaders(k, t);
    k.syncing = false;
    k.waitlist.notifyAll();
  }

  /** A failed round: the hits go back to pending and are resent next time. */
  private revertRate(s: RateSend): void {
    s.key.pushed = s.prevPushed;
    s.key.inflight = 0;
    s.key.syncing = false;
    s.key.waitlist.notifyAll();
  }

  /** Builds a claimed concurrency key's report (spec 3.7). */
  private buildCap(c: ConcurrencyKey, now: number): ConcurrencySend {
    const since = c.acquired - c.acquiredAtSync;
    const ewma =
      c.lastSync === Number.NEGATIVE_INFINITY
        ? c.ewma
        : c.ewma === 0
          ? since / Math.max(1, now - c.lastSync)
          : (c.ewma + since / Math.max(1, now - c.lastSync)) / 2;
    const recovering = this.isRecovering(c.tuning, now);
    const need = recovering ? 0 : c.waiters;
    const target =
      recovering || (since === 0 && need === 0)
        ? 0
        : Math.min(Math.max(Math.ceil(ewma * this.options.slowSyncMs * 2), 1), c.max);
    const unused = Math.min(Math.max(0, c.allowed - c.active), target);
    const request: ConcurrencyRequest = {
      key: c.storeKey,
      pod: this.podId,
      active: c.active,
      unused,
      want: target - unused,
      need,
      max: c.max,
      allowance: Math.min(c.tuning.localAllowance, 1),
      replicas: Math.max(this.replicaCount, 1),
      leaseTtlMs: this.concurrencyLeaseMs(),
    };
    c.sendSeq++;
    c.lastSync = now;
    return {
      key: c,
      seq: c.sendSeq,
      activeSend: c.active,
      acquiredSend: c.acquired,
      ewma,
      send: now,
      request,
    };
  }

  private applyCap(s: ConcurrencySend, reply: ConcurrencyReply): void {
    const c = s.key;
    c.allowed = s.activeSend + reply.kept + reply.granted + reply.direct;
    if (this.phase !== "closed") c.validUntil = s.send + CREDIT_TRUST * this.options.leaseTtlMs;
    c.acquiredAtSync = s.acquiredSend;
    c.others = reply.others;
    c.ewma = s.ewma;
    c.doneSeq = s.seq;
    c.syncing = false;
    c.waitlist.notifyAll();
  }

  private revertCap(s: ConcurrencySend): void {
    s.key.syncing = false;
    s.key.waitlist.notifyAll();
  }

  /**
   * One round trip for claimed keys: build, send (bounded by roundTimeoutMs), apply or revert
   * (spec 3.1-3.3, 3.8, 4). Never rejects.
   */
  private async exchange(
    rateKeys: RateKey[],
    capKeys: ConcurrencyKey[],
    heartbeat: "join" | "leave" | undefined,
    releases: Release[],
    now: number,
  ): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    const rates = rateKeys.map((k) => this.buildRate(k, now));
    const caps = capKeys.map((c) => this.buildCap(c, now));
    const request: RoundRequest = {
      releases,
      rates: rates.map((s) => s.request),
      concurrency: caps.map((s) => s.request),
    };
    if (heartbeat !== undefined) {
      request.heartbeat = {
        key: this.registry,
        pod: this.podId,
        windowMs: 3 * this.options.heartbeatMs,
        leave: heartbeat === "leave",
      };
      this.lastHeartbeat = now;
    }
    this.roundCount++;
    let reply: RoundReply;
    try {
      reply = await this.roundTrip(store, request);
      checkReply(request, reply);
    } catch (err) {
      this.lastStoreError = err;
      if (!this.failing) this.distrustCredit();
      this.failing = true;
      this.failureCount++;
      for (const s of rates) this.revertRate(s);
      for (const s of caps) this.revertCap(s);
      return;
    }
    const recv = this.clock.monoMs();
    this.syncSeconds.observe((recv - now) / 1000);
    const storeNow = reply.heartbeat?.now ?? reply.rates[0]?.now ?? reply.concurrency[0]?.now;
    if (storeNow !== undefined && Number.isFinite(storeNow) && storeNow > 0) {
      const sample = storeNow - (now + recv) / 2;
      this.offset = this.offsetMeasured ? this.offset + OFFSET_GAIN * (sample - this.offset) : sample;
      this.offsetMeasured = true;
    }
    if (this.failing) this.recoveredAt = recv;
    this.failing = false;
    this.lastOk = recv;
    if (reply.heartbeat !== undefined && heartbeat === "join") {
      this.replicaCount = Math.max(1, reply.heartbeat.replicas);
    }
    for (let i = 0; i < rates.length; i++) this.applyRate(rates[i]!, reply.rates[i]!, recv);
    for (let i = 0; i < caps.length; i++) this.applyCap(caps[i]!, reply.concurrency[i]!);
  }

  private roundTrip(store: Store, request: RoundRequest): Promise<RoundReply> {
    const ms = this.options.roundTimeoutMs;
    return new Promise<RoundReply>((resolve, reject) => {
      const timer = this.clock.setTimer(ms, () => reject(new StoreTimeoutError(ms)), { unref: true });
      let pending: Promise<RoundReply>;
      try {
        pending = store.round(request);
      } catch (err) {
        timer.cancel();
        reject(err);
        return;
      }
      pending.then(
        (reply) => {
          timer.cancel();
          resolve(reply);
        },
        (err: unknown) => {
          timer.cancel();
          reject(err);
        },
      );
    });
  }

  // ---------------------------------------------------------------- diagnostics

  /** Decisions reached this way so far. */
  outcomeCount(outcome: Outcome): number {
    const i = OUTCOMES.indexOf(outcome);
    return i < 0 ? 0 : this.counts[i]!;
  }

  /** Round trips that failed (store error, timeout, malformed reply). */
  syncFailures(): number {
    return this.failureCount;
  }

  /** Round trips attempted. */
  syncRounds(): number {
    return this.roundCount;
  }

  /** Live replicas of the service at the last heartbeat (1 until the first). */
  replicas(): number {
    return this.replicaCount;
  }

  hasStore(): boolean {
    return this.store !== undefined;
  }

  /** Whether the store is failing right now (the last round trip failed). */
  storeFailing(): boolean {
    return this.failing;
  }

  /** Metrics in the names of spec 1.6, recomputed at most once per second (the cached snapshot otherwise). */
  metrics(): LimiterMetrics {
    const now = this.clock.monoMs();
    if (this.metricsCache === undefined || now - this.metricsAt >= 1000) {
      this.metricsAt = now;
      this.metricsCache = snapshotMetrics({
        service: this.service,
        unixMs: this.clock.unixMs(),
        counts: this.counts,
        replicas: this.replicaCount,
        active: [...this.caps.values()].map((c) => ({ subject: c.subject, active: c.active })),
        sync: this.syncSeconds,
        failures: this.failureCount,
      });
    }
    return this.metricsCache;
  }
}

function checkSubject(subject: string): void {
  if (typeof subject !== "string" || subject.length === 0) {
    throw new InvalidPolicyError("subject", "must be a non-empty string");
  }
}

function checkReply(request: RoundRequest, reply: RoundReply): void {
  if (
    reply.rates.length !== request.rates.length ||
    reply.concurrency.length !== request.concurrency.length ||
    (request.heartbeat !== undefined && reply.heartbeat === undefined)
  ) {
    throw new StoreReplyError(
      `store replied ${reply.rates.length}/${reply.concurrency.length} for ${request.rates.length}/${request.concurrency.length} requests`,
    );
  }
  request.rates.forEach((r, i) => {
    if (reply.rates[i]!.windows.length !== r.windows.length) {
      throw new StoreReplyError(`store replied ${reply.rates[i]!.windows.length} windows for ${r.key}`);
    }
  });
}

/** Store time the window of width `windowMs` holding `t` ends. */
function windowEnd(t: number, windowMs: number): number {
  return (Math.floor(t / windowMs) + 1) * windowMs;
}
