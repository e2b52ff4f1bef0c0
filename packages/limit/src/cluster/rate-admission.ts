import type { Clock } from "../clock/clock.js";
import { SHARE_HEAD } from "../store/pool.js";
import { certainlyFull, coldRateCredit, denyFromView, overrunFits } from "./admission.js";
import {
  ALLOW_COLD,
  ALLOW_LOCAL,
  ALLOW_OVERRUN,
  ALLOW_SYNC,
  DENY_LOCAL,
  DENY_SYNC,
  type Decision,
} from "./decision.js";
import { dropStaleDirect } from "./direct-units.js";
import { LimiterClosedError } from "./errors.js";
import { emitEvent } from "./events.js";
import type { Exchange } from "./exchange.js";
import { decideDegraded, type LocalWindows, refreshLocalCredit } from "./fail-static.js";
import { allowWithFreshHeaders, overCapacityDecision } from "./headers.js";
import { ledgerOf } from "./ledger.js";
import type { RateKeyState } from "./rate-key.js";
import { RateWait } from "./rate-wait.js";
import type { SyncTimers } from "./schedule.js";
import { CREDIT_TRUST, type SyncEnv, windowEnd } from "./sync-maths.js";
import type { SyncSchedule } from "./sync-schedule.js";
import { startWait } from "./sync-wait.js";
import type { WaitDeadlines } from "./wait-deadlines.js";

/** What the slow path shares with the Limiter. */
export interface RateAdmissionDeps {
  env: SyncEnv;
  clock: Clock;
  /** Every wait's deadline, under one timer. */
  deadlines: WaitDeadlines;
  exchange: Exchange;
  timers: SyncTimers;
  schedule: SyncSchedule;
  localWindows: LocalWindows;
  /** Outcome counters in OUTCOMES order. */
  counts: number[];
  closed: () => boolean;
  /** Admission from credit (the Limiter's hot path), with an outcome to count. */
  admit: (k: RateKeyState, cost: number, outcome: number) => Decision | undefined;
}

/**
 * Rate decisions when credit does not cover a request (see docs/protocol.md#s2-3): local-only and
 * fail-static keys, certainly full windows, cold credit, and the wait for a sync with its overrun.
 */
export class RateAdmission {
  constructor(private readonly deps: RateAdmissionDeps) {}

  /** The slow path up to waiting (see docs/protocol.md#s2-3): `undefined` means wait for a sync. */
  decideNow(k: RateKeyState, cost: number): Decision | undefined {
    if (this.deps.closed()) throw new LimiterClosedError("check");
    if (cost > k.minCapacity) {
      this.deps.counts[DENY_LOCAL]!++;
      return overCapacityDecision(k, this.deps.clock.monoMs() + this.deps.env.health.offset);
    }
    const now = this.deps.clock.monoMs();
    const t = now + this.deps.env.health.offset;
    // out of credit, denied or dormant: the next round looks at the key (once per round at most)
    this.deps.schedule.touch(k, now);
    if (dropStaleDirect(k, t)) {
      const d = this.deps.admit(k, cost, ALLOW_LOCAL);
      if (d !== undefined) return d;
    }
    if (k.localOnly) {
      refreshLocalCredit(k, this.deps.localWindows, now, t);
      return this.deps.admit(k, cost, ALLOW_LOCAL) ?? this.deny(k, cost, now, DENY_LOCAL, false);
    }
    if (this.deps.env.health.isDegraded(k.policy, now)) return this.decideDegraded(k, cost, now);
    if (k.isExhausted(now)) return this.deny(k, cost, now, DENY_LOCAL, true);
    if (k.view.answered && certainlyFull(k, cost, t)) {
      if (now - k.view.at <= k.policy.cacheTtlMs) {
        this.deps.timers.wake();
        return this.deny(k, cost, now, DENY_LOCAL, true);
      }
      return undefined;
    }
    if (now >= k.validUntil && !k.syncing) return this.tryColdCredit(k, cost, now);
    return undefined;
  }

  /**
   * Cold credit for a key without any (docs/protocol.md#s2-4), then an immediate sync. Extension: a
   * view older than cacheTtlMs grants none (others may have spent the window since), so cold credit
   * never pushes a window over its limit once the key has been synced.
   */
  private tryColdCredit(k: RateKeyState, cost: number, now: number): Decision | undefined {
    if (this.deps.env.health.isRecovering(k.policy, now, this.deps.env.options.tickMs)) return undefined;
    if (k.view.answered && now - k.view.at > k.policy.cacheTtlMs) return undefined;
    // A family subject has never been set before start(): without a view its first window may be
    // full already (another replica, or before it was evicted), so its first request waits for a sync.
    if (!k.view.answered && k.family !== undefined) return undefined;
    const t = now + this.deps.env.health.offset;
    const units = coldRateCredit(k, this.deps.env.health.replicas(), t);
    if (!(units > 0)) return undefined;
    k.credit = k.admitted + units;
    k.refillBelow = Math.floor(units / 2);
    k.validUntil = now + CREDIT_TRUST * this.deps.env.options.leaseTtlMs;
    k.idleCredit = false;
    k.creditWindowEnd = windowEnd(t, k.minWindowMs);
    const decision = this.deps.admit(k, cost, ALLOW_COLD);
    if (!k.syncing) void this.deps.exchange.syncAlone(k);
    return decision;
  }

  /** Fail-static or fail-open while the store is unavailable (see docs/protocol.md#s4). */
  private decideDegraded(k: RateKeyState, cost: number, now: number): Decision {
    // the store's earliest time: a share of a new window opens only once the store's window is over;
    // its latest, 2 × offsetError later: a closing window's share ends once it may be over
    const err = this.deps.env.health.offsetError();
    const offset = this.deps.env.health.offset - err;
    // pacing a recovery is fail-static whatever the mode: the store answers again
    const failOpen =
      this.deps.env.options.onStoreUnavailable === "allow" && !this.deps.env.health.isPacing(k.policy, now);
    const outage = { since: this.deps.env.health.lastOk, viewT: k.view.at + offset };
    const n = this.deps.env.health.replicas();
    return decideDegraded(
      k,
      cost,
      now + offset,
      n,
      failOpen,
      this.deps.localWindows,
      this.deps.counts,
      outage,
      2 * err,
    );
  }

  /** Waits for sync replies, redisTimeoutMs or a few measured round trips (see docs/protocol.md#s2-5). */
  waitForSync(k: RateKeyState, cost: number, withinShare = false): Promise<Decision> {
    // the sync asks with the largest request waiting: the store keeps its units together, and a
    // one-unit request within its share may take them (docs/protocol.md#s3-9)
    if (cost >= 2 || withinShare) {
      const l = ledgerOf(k);
      const head = cost >= 2 ? cost : SHARE_HEAD;
      if (head > l.head) l.head = head;
    }
    return new Promise((resolve, reject) => {
      const wait = new RateWait(this.deps, this, k, cost, resolve, reject);
      startWait(
        this.deps.deadlines,
        k,
        cost,
        this.deps.env.health.waitBudgetMs(k.policy),
        k.policy.cacheTtlMs,
        "check",
        wait,
      );
    });
  }

  /**
   * The decision after a wait that `attempt` did not decide (`result` undefined) or did; `at`: a
   * deadline's time when that decides it, which the clock may not read yet.
   */
  afterWait(
    k: RateKeyState,
    cost: number,
    result: Decision | undefined,
    timedOut: boolean,
    at?: number,
  ): Decision {
    const health = this.deps.env.health;
    if (k.ledger !== undefined && k.waiters === 0) k.ledger.head = 0;
    const d = result ?? this.deps.admit(k, cost, ALLOW_SYNC);
    if (d !== undefined) return d;
    const now = at ?? this.deps.clock.monoMs();
    if (health.isDegraded(k.policy, now)) return this.decideDegraded(k, cost, now);
    if (timedOut || health.failing) {
      // No answer in time: admit beyond credit within this replica's share of what the view left.
      const t = now + health.offset;
      const answering = !health.failing;
      if (overrunFits(k, cost, t, k.view.at + health.offset, health.replicas(), answering)) {
        k.admitted += cost;
        k.overrunSinceView += cost;
        this.deps.counts[ALLOW_OVERRUN]!++;
        emitEvent(this.deps.env.options.onEvent, { type: "overrun", subject: k.subject, at: now });
        return allowWithFreshHeaders(k, t);
      }
      return this.deny(k, cost, now, DENY_LOCAL, false);
    }
    return this.deny(k, cost, now, DENY_SYNC, true);
  }

  /** A denial with Retry-After from the view (see docs/protocol.md#s2-6). */
  private deny(
    k: RateKeyState,
    cost: number,
    now: number,
    outcome: number,
    countReservations: boolean,
  ): Decision {
    this.deps.counts[outcome]!++;
    return denyFromView(
      k,
      cost,
      now + this.deps.env.health.offset,
      this.deps.env.health.replicas(),
      countReservations,
    );
  }
}
