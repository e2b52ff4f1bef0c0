import type { KeyLedger } from "./ledger.js";
import { newPushId, RareState, SyncPart } from "./rate-key-parts.js";
import type { Waitlist } from "./waitlist.js";

/**
 * The fields of a rate key (rate-key.ts) that most keys never use, or only once synced: read through
 * accessors, kept in parts made on first use (a local-only key usually has none).
 */
export abstract class LazyKeyParts {
  // The sync side, made by the first sync (a local-only key never has one unless it denies or settles);
  // it also holds the push id, the store key of a family key, the waitlist and the rare fields.
  protected sync: SyncPart | undefined = undefined;

  protected syncPart(): SyncPart {
    if (this.sync === undefined) this.sync = new SyncPart();
    return this.sync;
  }

  /** Admits in the request in flight. */
  get inflight(): number {
    return this.sync === undefined ? 0 : this.sync.inflight;
  }
  set inflight(v: number) {
    if (this.sync !== undefined) this.sync.inflight = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.inflight = v;
    }
  }
  get syncing(): boolean {
    return this.sync === undefined ? false : this.sync.syncing;
  }
  set syncing(v: boolean) {
    if (this.sync !== undefined) this.sync.syncing = v;
    else if (v !== false) {
      this.sync = new SyncPart();
      this.sync.syncing = v;
    }
  }
  /** Units wanted by requests waiting on a sync. */
  get waiters(): number {
    return this.sync === undefined ? 0 : this.sync.waiters;
  }
  set waiters(v: number) {
    if (this.sync !== undefined) this.sync.waiters = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.waiters = v;
    }
  }
  get denied(): number {
    return this.sync === undefined ? 0 : this.sync.denied;
  }
  set denied(v: number) {
    if (this.sync !== undefined) this.sync.denied = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.denied = v;
    }
  }
  /** Index (store time, smallest window) of the last window this replica admitted or denied the key in; -1: never. */
  get usedWindow(): number {
    return this.sync === undefined ? -1 : this.sync.usedWindow;
  }
  set usedWindow(v: number) {
    if (this.sync !== undefined) this.sync.usedWindow = v;
    else if (v !== -1) {
      this.sync = new SyncPart();
      this.sync.usedWindow = v;
    }
  }
  get sendSeq(): number {
    return this.sync === undefined ? 0 : this.sync.sendSeq;
  }
  set sendSeq(v: number) {
    if (this.sync !== undefined) this.sync.sendSeq = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.sendSeq = v;
    }
  }
  get doneSeq(): number {
    return this.sync === undefined ? 0 : this.sync.doneSeq;
  }
  set doneSeq(v: number) {
    if (this.sync !== undefined) this.sync.doneSeq = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.doneSeq = v;
    }
  }
  get lastSync(): number {
    return this.sync === undefined ? Number.NEGATIVE_INFINITY : this.sync.lastSync;
  }
  set lastSync(v: number) {
    if (this.sync !== undefined) this.sync.lastSync = v;
    else if (v !== Number.NEGATIVE_INFINITY) {
      this.sync = new SyncPart();
      this.sync.lastSync = v;
    }
  }
  /** Admits per ms. */
  get ewma(): number {
    return this.sync === undefined ? 0 : this.sync.ewma;
  }
  set ewma(v: number) {
    if (this.sync !== undefined) this.sync.ewma = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.ewma = v;
    }
  }
  /** Local time the sync schedule looks at this key next (+inf: not queued). */
  get dueAt(): number {
    return this.sync === undefined ? Number.POSITIVE_INFINITY : this.sync.dueAt;
  }
  set dueAt(v: number) {
    if (this.sync !== undefined) this.sync.dueAt = v;
    else if (v !== Number.POSITIVE_INFINITY) {
      this.sync = new SyncPart();
      this.sync.dueAt = v;
    }
  }
  /** Waiting to ride along with the next round (slack 0.5). */
  get riding(): boolean {
    return this.sync === undefined ? false : this.sync.riding;
  }
  set riding(v: boolean) {
    if (this.sync !== undefined) this.sync.riding = v;
    else if (v !== false) {
      this.sync = new SyncPart();
      this.sync.riding = v;
    }
  }
  /** In the sync schedule's awake set (queued or syncing). */
  get awake(): boolean {
    return this.sync === undefined ? false : this.sync.awake;
  }
  set awake(v: boolean) {
    if (this.sync !== undefined) this.sync.awake = v;
    else if (v !== false) {
      this.sync = new SyncPart();
      this.sync.awake = v;
    }
  }
  /** A parked key's refill threshold (its own is +inf while it is parked). */
  get parkedRefillBelow(): number {
    return this.sync === undefined ? 0 : this.sync.parkedRefillBelow;
  }
  set parkedRefillBelow(v: number) {
    if (this.sync !== undefined) this.sync.parkedRefillBelow = v;
    else if (v !== 0) {
      this.sync = new SyncPart();
      this.sync.parkedRefillBelow = v;
    }
  }
  /** The credit was leased for longer than leaseTtlMs, the key being far below its limit. */
  get idleCredit(): boolean {
    return this.sync === undefined ? false : this.sync.idleCredit;
  }
  set idleCredit(v: boolean) {
    if (this.sync !== undefined) this.sync.idleCredit = v;
    else if (v !== false) {
      this.sync = new SyncPart();
      this.sync.idleCredit = v;
    }
  }
  /** Store time the smallest window the credit was taken in ends (credit is not trusted past it while the store fails). */
  get creditWindowEnd(): number {
    return this.sync === undefined ? Number.POSITIVE_INFINITY : this.sync.creditWindowEnd;
  }
  set creditWindowEnd(v: number) {
    if (this.sync !== undefined) this.sync.creditWindowEnd = v;
    else if (v !== Number.POSITIVE_INFINITY) {
      this.sync = new SyncPart();
      this.sync.creditWindowEnd = v;
    }
  }

  /** Names this key state's push total in the store (idempotent rounds): unique per instance. */
  get pushId(): string {
    const sync = this.syncPart();
    if (sync.pushId === undefined) sync.pushId = newPushId();
    return sync.pushId;
  }

  /** Requests waiting on this key's next sync reply. */
  get waitlist(): Waitlist {
    return this.syncPart();
  }

  /** Wakes the waiting requests, if any (allocates nothing otherwise). */
  notifyWaiters(): void {
    this.sync?.notifyAll();
  }

  protected get rare(): RareState | undefined {
    return this.sync?.rare;
  }

  protected rareState(): RareState {
    const sync = this.syncPart();
    if (sync.rare === undefined) sync.rare = new RareState();
    return sync.rare;
  }

  // Back to every default (a boundary snapshot pushed, pacing over): the rare part goes again.
  protected dropRare(): void {
    const r = this.rare;
    if (
      r !== undefined &&
      r.exhaustedUntil === Number.NEGATIVE_INFINITY &&
      r.boundaryAdmitted === -1 &&
      r.overrunSinceView === 0 &&
      r.degradedCache === undefined &&
      r.ledger === undefined
    )
      this.sync!.rare = undefined;
  }

  /** Direct units dropped, settled charges and debt (ledger.ts): made on first use. */
  get ledger(): KeyLedger | undefined {
    return this.rare?.ledger;
  }
  set ledger(l: KeyLedger | undefined) {
    if (this.rare !== undefined || l !== undefined) this.rareState().ledger = l;
  }

  /** Local time before which asking for more credit gets nothing (the store said when a unit frees). */
  get exhaustedUntil(): number {
    return this.rare === undefined ? Number.NEGATIVE_INFINITY : this.rare.exhaustedUntil;
  }
  set exhaustedUntil(v: number) {
    if (this.rare !== undefined || v !== Number.NEGATIVE_INFINITY) this.rareState().exhaustedUntil = v;
    if (v === Number.NEGATIVE_INFINITY) this.dropRare();
  }

  /** `admitted` at the last window-boundary snapshot (-1: none) and the store time it is charged at. */
  get boundaryAdmitted(): number {
    return this.rare === undefined ? -1 : this.rare.boundaryAdmitted;
  }
  set boundaryAdmitted(v: number) {
    if (this.rare !== undefined || v !== -1) this.rareState().boundaryAdmitted = v;
    if (v === -1) this.dropRare();
  }
  get boundaryTime(): number {
    return this.rare === undefined ? 0 : this.rare.boundaryTime;
  }
  set boundaryTime(v: number) {
    if (this.rare !== undefined || v !== 0) this.rareState().boundaryTime = v;
  }

  /** Units admitted without a reply (overruns) since the last reply was applied. */
  get overrunSinceView(): number {
    return this.rare === undefined ? 0 : this.rare.overrunSinceView;
  }
  set overrunSinceView(v: number) {
    if (this.rare !== undefined || v !== 0) this.rareState().overrunSinceView = v;
    if (v === 0) this.dropRare();
  }
}
