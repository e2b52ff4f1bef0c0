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

/**
 * The per-replica state of one rate-limited subject (see docs/protocol.md#s2-1): credit to admit
 * from, admits the store has not counted yet, and where the key stands in its sync cycle.
 */
export class RateKeyState {
  // What the policy's windows derive (shared by every key of the policy); read through getters below.
  private readonly shape: PolicyShape;

  // Hot: what admission from credit reads and writes.
  /** Units admitted by this replica, ever (monotonic). */
  admitted = 0;
  /** The ceiling `admitted` may reach: absolute, against `admitted`. */
  credit = 0;
  /** Local monotonic time the credit stops being trusted. */
  validUntil = Number.NEGATIVE_INFINITY;
  /** Fewer unused credits than this asks the loop for an early refill. */
  refillBelow = 0;
  /** An early refill was asked for and not answered yet. */
  refillWanted = false;
  /** Store time at which local-only credit must be re-checked; for a synced key, when unspent direct units lapse (+inf: none). */
  boundary: number;
  // Header snapshot, taken after each reply.
  hdrRemaining = 0;
  hdrAdmitted = 0;
  hdrReset = 0;
  hdrResetMs = 0;

  // Sync side.
  /** `admitted` as far as the store has been told (sent, possibly still in flight). */
  pushed = 0;
  /** Direct units dropped, settled charges and debt (ledger.ts): made on first use. */
  ledger: KeyLedger | undefined = undefined;
  view: StoreView;
  /** The family this key's policy came from (undefined: setPolicy); such keys are evicted when idle. */
  family: Family | undefined = undefined;
  /** Removed, replaced or evicted: never synced again. */
  retired = false;
  /** A local-only key's window counts (fail-static.ts), remembered to skip a lookup by store key. */
  localEntry: object | undefined = undefined;
  // Made on first use: the push id (first push), the waitlist (first wait), the rare fields.
  private pushIdValue: string | undefined = undefined;
  private waitlistValue: Waitlist | undefined = undefined;
  private rare: RareState | undefined = undefined;
  // The sync side, made by the first sync (a local-only key never has one unless it denies).
  private sync: SyncPart | undefined = undefined;

  constructor(
    readonly subject: string,
    readonly storeKey: string,
    /** Replaced in place by a tuning-only change (same store key), which keeps the live state. */
    public policy: RatePolicy,
    readonly localOnly: boolean,
  ) {
    const shape = shapeOf(policy);
    this.shape = shape;
    this.boundary = localOnly ? 0 : Number.POSITIVE_INFINITY;
    // replaced, never changed in place, by every reply: one empty view serves every key of a policy
    this.view = shape.emptyView;
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
    if (this.pushIdValue === undefined) this.pushIdValue = newPushId();
    return this.pushIdValue;
  }

  /** Requests waiting on this key's next sync reply. */
  get waitlist(): Waitlist {
    if (this.waitlistValue === undefined) this.waitlistValue = new Waitlist();
    return this.waitlistValue;
  }

  /** Wakes the waiting requests, if any (allocates nothing otherwise). */
  notifyWaiters(): void {
    this.waitlistValue?.notifyAll();
  }

  private rareState(): RareState {
    if (this.rare === undefined) this.rare = new RareState();
    return this.rare;
  }

  // Back to every default (a boundary snapshot pushed, pacing over): the rare part goes again.
  private dropRare(): void {
    const r = this.rare;
    if (
      r !== undefined &&
      r.exhaustedUntil === Number.NEGATIVE_INFINITY &&
      r.boundaryAdmitted === -1 &&
      r.overrunSinceView === 0 &&
      r.degradedCache === undefined
    )
      this.rare = undefined;
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
