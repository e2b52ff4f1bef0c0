import { TimeQueue } from "../store/time-queue.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import { MIN_CONCURRENCY_LEASE_MS } from "./concurrency-sync.js";
import type { ResolvedOptions } from "./config.js";
import { type LocalWindows, refreshLocalCredit } from "./fail-static.js";
import type { Family } from "./families.js";
import type { RateKeyState } from "./rate-key.js";
import type { SubjectTable } from "./subjects.js";

// Idle checks are grouped in slots this long: an eviction may come this much after its idle time.
const SLOT_MS = 100;
// A subject found busy is looked at again this much later at the soonest.
const RECHECK_MS = 1000;

/**
 * How long a family subject stays idle before it is forgotten (see docs/protocol.md#s1-7): its
 * longest window plus the rate lease, and at least a concurrency lease when it has a cap. By then
 * its store leases have expired and a full window has passed.
 */
export function familyIdleMs(family: Family, options: ResolvedOptions): number {
  if (family.idleMs !== undefined && family.idleLease === options.leaseTtlMs) return family.idleMs;
  let ms = 0;
  if (family.policy !== undefined) {
    ms = Math.max(...family.policy.windows.map((w) => w.windowMs)) + options.leaseTtlMs;
  }
  if (family.max > 0) ms = Math.max(ms, options.leaseTtlMs, MIN_CONCURRENCY_LEASE_MS);
  family.idleMs = ms;
  family.idleLease = options.leaseTtlMs;
  return ms;
}

/** Local time a rate key last did anything the store or the local windows saw. */
function rateActiveAt(k: RateKeyState): number {
  return Math.max(k.lastSync, k.view.at);
}

/**
 * A rate key may go: no sync in flight, no waiter, nothing the store has not counted, no credit it
 * could still spend, out of the sync schedule. A local-only key's last admits are counted on eviction.
 */
export function rateKeyEvictable(k: RateKeyState, now: number): boolean {
  if (k.waiters > 0 || k.syncing) return false;
  if (k.localOnly) return true;
  const credit = k.unused() >= 1 && now < k.validUntil;
  return !credit && k.inflight === 0 && k.nothingToPush() && k.dueAt === Number.POSITIVE_INFINITY;
}

/** A sync of the key is certain to come: one in flight, a waiter, or admits the store has not seen. */
function syncToCome(k: RateKeyState): boolean {
  return k.syncing || k.waiters > 0 || k.inflight > 0 || !k.nothingToPush();
}

/** A concurrency key may go: no slot held, no waiter, no acquisition unreported, no slot credit. */
export function capEvictable(c: ConcurrencyKeyState, now: number): boolean {
  if (c.waiters > 0 || c.syncing || c.active > 0) return false;
  if (c.localOnly) return true;
  const credit = c.allowed > c.active && now < c.validUntil;
  return !credit && c.acquired === c.acquiredAtSync && c.dueAt === Number.POSITIVE_INFINITY;
}

/** Forgets family subjects idle longer than their family's idle time, without scanning the others. */
export class IdleSweep {
  private readonly queue = new TimeQueue<RateKeyState | ConcurrencyKeyState>(SLOT_MS);
  /** Subjects forgotten so far. */
  evicted = 0;

  constructor(
    private readonly subjects: SubjectTable,
    private readonly localWindows: LocalWindows,
    private readonly options: ResolvedOptions,
    /** Store ms minus local ms. */
    private readonly offset: () => number,
  ) {}

  /** A family subject's first state was made: look at it once its idle time has passed. */
  watch(state: RateKeyState | ConcurrencyKeyState, now: number): void {
    if (state.family !== undefined) this.queue.add(state, now + familyIdleMs(state.family, this.options));
  }

  /** Ms until the next subject is looked at (0 when one is due, +Infinity when none is watched). */
  dueIn(now: number): number {
    let next = Math.min(this.queue.nextAt(), this.localWindows.nextSweepAt() - this.offset());
    for (const family of this.subjects.families.all()) {
      if (family.spares.size > 0)
        next = Math.min(next, family.spares.oldestAt() + familyIdleMs(family, this.options));
    }
    return Math.max(0, next - now);
  }

  sweep(now: number): void {
    this.queue.popDue(now, (state) => {
      this.visit(state, now);
      return true;
    });
    this.localWindows.sweep(now + this.offset());
    // spare parts are kept one idle time: as long as a subject's own state would have been
    for (const family of this.subjects.families.all()) {
      if (family.spares.size > 0) family.spares.dropBefore(now - familyIdleMs(family, this.options));
    }
  }

  private visit(state: RateKeyState | ConcurrencyKeyState, now: number): void {
    const family = state.family;
    const { rates, caps } = this.subjects;
    const k = rates.get(state.subject);
    const c = caps.get(state.subject);
    // replaced or removed, or set by setPolicy since: not this queue's any more
    if (state.retired || family === undefined || (k ?? c) !== state) return;
    const idleMs = familyIdleMs(family, this.options);
    // -inf: never synced nor refreshed, idle since it was made (this visit is its idle time after)
    const never = Number.NEGATIVE_INFINITY;
    const activeAt = Math.max(k === undefined ? never : rateActiveAt(k), c?.lastSync ?? never);
    const evictable =
      (k === undefined || rateKeyEvictable(k, now)) && (c === undefined || capEvictable(c, now));
    if (!evictable || now - activeAt < idleMs) {
      // not before its idle time, and at most about once a second while busy
      let next = Math.max(now + RECHECK_MS, activeAt + idleMs);
      // a rate key with a sync to come: that sync is its last activity at the soonest, so it cannot
      // go before idleMs from now (with a million keys waiting on their push, a look every second
      // at each would take the CPU the syncs need)
      if (!evictable && c === undefined && k !== undefined && syncToCome(k)) next = now + idleMs;
      this.queue.add(state, next);
      return;
    }
    this.subjects.remove(state.subject);
    if (k?.localOnly) this.flushLocal(k, now);
    // fail-static counts of the key, if the store failed while it was used
    if (k !== undefined) this.localWindows.release(`${k.storeKey}:local`, k.windows, now + this.offset());
    const part = k?.localOnly === false ? k.shed() : undefined;
    if (part !== undefined) family.spares.give(part, now);
    this.evicted++;
  }

  // A local-only key's admits since its last refresh go into its window counts, then its credit is let go.
  private flushLocal(k: RateKeyState, now: number): void {
    const t = now + this.offset();
    if (k.hasUnpushed()) refreshLocalCredit(k, this.localWindows, now, t);
    this.localWindows.park(k, t);
  }
}
