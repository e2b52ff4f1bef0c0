import { TimeQueue } from "../store/time-queue.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import { isBusy } from "./idle-credit.js";
import type { RateKeyState } from "./rate-key.js";
import { concurrencyDue, givesBack, isSparse, rateDue, sparseWaitMs } from "./schedule.js";
import { claim, type SyncEnv } from "./sync-maths.js";

/**
 * Which keys a round looks at (see docs/protocol.md#s3-1): each key waits in a queue by the time it
 * may next be due, so a round costs the keys due, not the keys known. A key with nothing to push,
 * no credit and no waiter leaves the queue (dormant) until a request needs the store again.
 */
export class SyncSchedule {
  private readonly rates = new TimeQueue<RateKeyState>(1);
  private readonly caps = new TimeQueue<ConcurrencyKeyState>(1);
  /** Keys nearly due (slack 0.5) that ride along with the next round that has something to send. */
  private riders: RateKeyState[] = [];
  /** Rate keys queued or syncing: what a window boundary looks at. */
  readonly awake = new Set<RateKeyState>();

  /** Called when a key enters an empty schedule or none was awake: the background timers may be idle. */
  onFirstDue: () => void = () => {};

  constructor(private readonly env: SyncEnv) {}

  /** No key waits to be looked at. */
  isEmpty(): boolean {
    return this.rates.isEmpty() && this.caps.isEmpty() && this.riders.length === 0;
  }

  /** Looks at `k` at `at` (local ms) at the latest. */
  touch(k: RateKeyState, when: number): void {
    // whole ms: the queue pops a slot once it has started, when the key must be due already
    const at = Math.ceil(when);
    if (k.localOnly || k.retired || !(at < k.dueAt)) return;
    const first = this.isEmpty() || this.awake.size === 0;
    k.dueAt = at;
    this.rates.add(k, at);
    // the flag spares a lookup in a set of up to every known key, once per look at the key
    if (!k.awake) {
      k.awake = true;
      this.awake.add(k);
    }
    if (first) this.onFirstDue();
  }

  /** A parked key admitted from its credit: it is looked at again now. */
  unpark(k: RateKeyState, now: number): void {
    unparked(k);
    this.touch(k, now);
  }

  touchCap(c: ConcurrencyKeyState, when: number): void {
    const at = Math.ceil(when);
    if (c.localOnly || c.retired || !(at < c.dueAt)) return;
    const first = this.isEmpty();
    c.dueAt = at;
    this.caps.add(c, at);
    if (first) this.onFirstDue();
  }

  /** After a reply (or a failed round): when the key may next be due. */
  afterSync(k: RateKeyState, now: number): void {
    k.dueAt = Number.POSITIVE_INFINITY;
    this.reschedule(k, now);
  }

  afterCapSync(c: ConcurrencyKeyState, now: number): void {
    c.dueAt = Number.POSITIVE_INFINITY;
    const at = nextCapCheck(this.env, c, now);
    if (at !== Number.POSITIVE_INFINITY) this.touchCap(c, Math.max(at, Math.floor(now) + 1));
  }

  /**
   * Claims the keys due at `now` into `into`, up to `limit`; then, if the round has anything to send
   * (or `heartbeat`), the nearly due riders. True when the round is full (more may be due).
   */
  collect(
    now: number,
    into: { rates: RateKeyState[]; caps: ConcurrencyKeyState[] },
    limit: number,
    heartbeat: boolean,
  ): boolean {
    const { env } = this;
    let full = false;
    const room = () => into.rates.length + into.caps.length < limit;
    this.rates.popDue(now, (k) => {
      if (!(k.dueAt <= now)) return true; // stale: queued again later, or dormant
      if (!room()) {
        full = true;
        return false;
      }
      k.dueAt = Number.POSITIVE_INFINITY;
      unparked(k);
      if (k.syncing || k.retired) return true; // the reply schedules it again
      if (rateDue(env, k, now, 1) && claim(k)) into.rates.push(k);
      else this.reschedule(k, now);
      return true;
    });
    this.caps.popDue(now, (c) => {
      if (!(c.dueAt <= now)) return true;
      if (!room()) {
        full = true;
        return false;
      }
      c.dueAt = Number.POSITIVE_INFINITY;
      if (c.syncing || c.retired) return true;
      if (concurrencyDue(env, c, now, 1) && claim(c)) into.caps.push(c);
      else this.afterCapSync(c, now);
      return true;
    });
    if (into.rates.length + into.caps.length > 0 || heartbeat) {
      const riders = this.riders;
      this.riders = [];
      for (const k of riders) {
        k.riding = false;
        if (!room()) continue;
        if (!k.syncing && !k.retired && rateDue(env, k, now, 0.5) && claim(k)) into.rates.push(k);
      }
    }
    return full;
  }

  private reschedule(k: RateKeyState, now: number): void {
    let at = nextRateCheck(this.env, k, now);
    unparked(k);
    if (at < k.validUntil && holdsIdleCredit(k, now) && !givesBack(this.env, k, now)) {
      // nothing but an admit can make it due before its credit lapses (spend queues it again then);
      // looked at once more where, holding one admit, it could ride along (rateDue, sparse keys)
      const interval = Math.max(this.env.options.slowSyncMs, k.policy.syncIntervalMs);
      at = Math.max(
        at,
        Math.min(k.validUntil, k.lastSync + sparseWaitMs(k, interval) - k.policy.syncIntervalMs),
      );
      // parked: spend's refill check then catches its first admit, with no other test on the hot path
      k.parkedRefillBelow = k.refillBelow;
      k.refillBelow = Number.POSITIVE_INFINITY;
    }
    if (at === Number.POSITIVE_INFINITY) {
      this.awake.delete(k);
      k.awake = false;
      return;
    }
    // never the slot being visited: a key looked at now waits at least until the next millisecond
    this.touch(k, Math.max(at, Math.floor(now) + 1));
    if (!k.riding && rateDue(this.env, k, now, 0.5)) {
      k.riding = true;
      this.riders.push(k);
    }
  }
}

/**
 * The earliest local time `k` may be due without a new request (docs/protocol.md#s2-7), or +Infinity:
 * nothing to push, no credit, no waiter (a request out of credit schedules it again).
 */
export function nextRateCheck(env: SyncEnv, k: RateKeyState, now: number): number {
  if (k.waiters > 0) return now;
  const exhausted = k.isExhausted(now);
  if (k.refillWanted) return exhausted ? k.exhaustedUntil : now;
  const { slowSyncMs } = env.options;
  const offset = env.health.offset;
  const w = Math.floor((now + offset) / k.minWindowMs);
  let at = Number.POSITIVE_INFINITY;
  // the window-opening sync of a key used in this window with no credit left
  if ((k.usedWindow >= w || k.hasUnpushed()) && k.unused() < 1) at = (w + 1) * k.minWindowMs - offset + 1;
  if (exhausted && k.nothingToPush()) return Math.min(at, k.exhaustedUntil);
  // admits made from credit are pushed within this long of their interval
  const recheck = now + Math.max(k.policy.syncIntervalMs, slowSyncMs / 4);
  if (k.isQuiet()) {
    if (k.unused() < 1 || now >= k.validUntil) return at;
    const half = k.lastSync + slowSyncMs / 2;
    return Math.min(at, k.validUntil, half > now ? half : recheck);
  }
  const busy = isBusy(k, now + offset);
  const interval = busy ? k.policy.syncIntervalMs : Math.max(slowSyncMs, k.policy.syncIntervalMs);
  if (!busy && k.idleCredit && isSparse(k, now)) {
    // idle credit holding admits: nothing but time or a refill (spend touches it) makes it due sooner;
    // looked at where it could ride along, then where it is due alone
    const ride = k.lastSync + sparseWaitMs(k, interval) - k.policy.syncIntervalMs;
    return Math.min(at, ride > now ? ride : ride + k.policy.syncIntervalMs);
  }
  const half = k.lastSync + interval / 2;
  const due = k.lastSync + interval;
  return Math.min(at, recheck, half > now ? half : Math.max(due, now));
}

/** The earliest local time a concurrency key may be due, or +Infinity (no slot, no credit, no waiter). */
export function nextCapCheck(env: SyncEnv, c: ConcurrencyKeyState, now: number): number {
  if (c.waiters > 0) return now;
  const acquiring = c.acquired > c.acquiredAtSync;
  if (!acquiring && c.active === 0 && (c.allowed <= c.active || now >= c.validUntil)) {
    return Number.POSITIVE_INFINITY;
  }
  const busy = acquiring && (c.active + c.others) * 2 > c.max;
  const { slowSyncMs } = env.options;
  const interval = busy ? c.tuning.syncIntervalMs : Math.max(slowSyncMs, c.tuning.syncIntervalMs);
  const half = c.lastSync + interval / 2;
  const due = c.lastSync + interval;
  const recheck = now + Math.max(c.tuning.syncIntervalMs, slowSyncMs / 4);
  return Math.min(recheck, half > now ? half : Math.max(due, now));
}

/** Quiet, with credit, and no waiter or refill wanted: only time and its own admits change it. */
function holdsIdleCredit(k: RateKeyState, now: number): boolean {
  return k.waiters === 0 && !k.refillWanted && k.isQuiet() && k.unused() >= 1 && now < k.validUntil;
}

/** Not parked: its refill threshold back (a grant since has set a new one, and unparked it). */
function unparked(k: RateKeyState): void {
  if (k.parked) k.refillBelow = k.parkedRefillBelow;
}
