import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import { Waitlist } from "./admission.js";
import type { RatePolicy } from "./config.js";
import type { Family } from "./families.js";
import type { KeyLedger } from "./ledger.js";
import { newPushId, type PolicyShape, RareState, SyncPart, shapeOf } from "./rate-key-parts.js";

/** What the last store reply said about a key's windows. */
export interface StoreView {
  /** Local monotonic time the reply arrived. */
  at: number;
  windows: WindowState[];
  /** Credit other replicas held in live leases. */
  reservedOthers: number;
  /** False until the first reply arrives. */
  answered: boolean;
}

const LOCAL_ONLY = 1;
const RETIRED = 2;
const REFILL_WANTED = 4;

/**
 * The per-replica state of one rate-limited subject (see docs/protocol.md#s2-1): credit to admit
 * from, admits the store has not counted yet, and where the key stands in its sync cycle.
 */
export class RateKeyState {
  // What the policy's windows derive (shared by every key of the policy, the policy included).
  private shape: PolicyShape;
  // The store key, or the family the key's policy came from (its keys are built when first needed).
  private origin: string | Family;

  // Hot: what admission from credit reads and writes.
  /** Units admitted by this replica, ever (monotonic). */
  admitted = 0;
  /** The ceiling `admitted` may reach: absolute, against `admitted`. */
  credit = 0;
  /** Local monotonic time the credit stops being trusted. */
  validUntil = Number.NEGATIVE_INFINITY;
  /** Fewer unused credits than this asks the loop for an early refill. */
  refillBelow = 0;
  /** Store time at which local-only credit must be re-checked; for a synced key, when unspent direct units lapse (+inf: none). */
  boundary: number;
  // Header snapshot, taken after each reply: remaining units plus `admitted` then, and the reset (Unix s).
  hdrLeft = 0;
  hdrReset = 0;

  // Sync side.
  /** `admitted` as far as the store has been told (sent, possibly still in flight). */
  pushed = 0;
  /** The last store reply; a local-only key's own window counts once refreshed (fail-static.ts). */
  view: StoreView;
  // LOCAL_ONLY, RETIRED and REFILL_WANTED bits, one field (read through the accessors below).
  private flags: number;
  // The sync side, made by the first sync (a local-only key never has one unless it denies or settles);
  // it also holds the push id, the waitlist and the rare fields.
  private sync: SyncPart | undefined = undefined;

  constructor(
    readonly subject: string,
    /** The store key, or the key's family (the key is then built when first needed). */
    origin: string | Family,
    /** Replaced in place by a tuning-only change (same store key), which keeps the live state. */
    policy: RatePolicy,
    localOnly: boolean,
  ) {
    this.flags = localOnly ? LOCAL_ONLY : 0;
    const shape = shapeOf(policy);
    this.shape = shape;
    this.origin = origin;
    this.boundary = localOnly ? 0 : Number.POSITIVE_INFINITY;
    // replaced, never changed in place, by every reply: one empty view serves every key of a policy
    this.view = shape.emptyView;
  }

  /** Decided by this replica alone (allowance >= 1, or no store). */
  get localOnly(): boolean {
    return (this.flags & LOCAL_ONLY) !== 0;
  }
  /** Removed, replaced or evicted: never synced again. */
  get retired(): boolean {
    return (this.flags & RETIRED) !== 0;
  }
  set retired(v: boolean) {
    this.flags = v ? this.flags | RETIRED : this.flags & ~RETIRED;
  }
  /** An early refill was asked for and not answered yet. */
  get refillWanted(): boolean {
    return (this.flags & REFILL_WANTED) !== 0;
  }
  set refillWanted(v: boolean) {
    this.flags = v ? this.flags | REFILL_WANTED : this.flags & ~REFILL_WANTED;
  }

  get policy(): RatePolicy {
    return this.shape.policy;
  }
  set policy(policy: RatePolicy) {
    this.shape = shapeOf(policy);
  }

  /** `rl2:{<service>:<subject>}:<hash16>`; a local-only family key builds it each time (it is rarely read). */
  get storeKey(): string {
    const o = this.origin;
    if (typeof o === "string") return o;
    // a synced key reads it every round: kept in its sync part
    if (this.sync?.storeKey !== undefined) return this.sync.storeKey;
    const key = o.rateStoreKey(this.subject);
    if (!this.localOnly) this.syncPart().storeKey = key;
    return key;
  }

  /** The family this key's policy came from (undefined: setPolicy); such keys are evicted when idle. */
  get family(): Family | undefined {
    const o = this.origin;
    return typeof o === "string" ? undefined : o;
  }
  /** Its store key stays (a tuning-only change): `family` must name keys as this one is named. */
  set family(family: Family | undefined) {
    if (family !== this.family) this.origin = family ?? this.storeKey;
  }

  /** Remaining units in the header snapshot, counted down by this replica's admits since. */
  get hdrRemaining(): number {
    return this.hdrLeft - this.admitted;
  }

  get alg(): AlgorithmCode {
    return this.shape.alg;
  }
  get windows(): readonly WindowSpec[] {
    return this.shape.windows;
  }
  get capacities(): readonly number[] {
    return this.shape.capacities;
  }
  get minCapacity(): number {
    return this.shape.minCapacity;
  }
  get minWindowMs(): number {
    return this.shape.minWindowMs;
  }
  /** Index of the head window: the lowest limit per ms, first on a tie. */
  get head(): number {
    return this.shape.head;
  }
  get headLimit(): number {
    return this.shape.headLimit;
  }

  private syncPart(): SyncPart {
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
    const sync = this.syncPart();
    if (sync.waitlist === undefined) sync.waitlist = new Waitlist();
    return sync.waitlist;
  }

  /** Wakes the waiting requests, if any (allocates nothing otherwise). */
  notifyWaiters(): void {
    this.sync?.waitlist?.notifyAll();
  }

  private get rare(): RareState | undefined {
    return this.sync?.rare;
  }

  private rareState(): RareState {
    const sync = this.syncPart();
    if (sync.rare === undefined) sync.rare = new RareState();
    return sync.rare;
  }

  // Back to every default (a boundary snapshot pushed, pacing over): the rare part goes again.
  private dropRare(): void {
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

  /** Admits not yet counted by the store: unpushed plus in flight. */
  localExtra(): number {
    return Math.max(0, this.admitted - this.pushed) + this.inflight;
  }

  /** Credit held and not spent. */
  unused(): number {
    return Math.max(0, this.credit - this.admitted);
  }

  /** Admits made since the last push. */
  hasUnpushed(): boolean {
    return this.admitted > this.pushed;
  }

  /** Admits made before a window boundary wait to be charged to the closing window. */
  hasBoundarySnapshot(): boolean {
    return this.boundaryAdmitted >= 0;
  }

  /** Nothing the store has not seen: no unpushed admits, no boundary snapshot. */
  nothingToPush(): boolean {
    return !this.hasUnpushed() && !this.hasBoundarySnapshot();
  }

  /** The store said no unit frees before `exhaustedUntil`. */
  isExhausted(now: number): boolean {
    return now < this.exhaustedUntil;
  }

  /** Quiet: nothing to push and nothing denied since the last sync. */
  isQuiet(): boolean {
    return this.nothingToPush() && this.denied === 0;
  }

  /** The windows scaled to one replica's share for fail-static decisions (cached per replica count). */
  degradedWindows(replicas: number): WindowSpec[] {
    const rare = this.rareState();
    if (rare.degradedCache?.replicas !== replicas) {
      const share = (n: number) => Math.max(1, Math.ceil(n / replicas));
      rare.degradedCache = {
        replicas,
        windows: this.windows.map((w) => ({
          limit: share(w.limit),
          windowMs: w.windowMs,
          burst: share(w.burst),
        })),
      };
    }
    return rare.degradedCache.windows;
  }
}
