import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import type { RatePolicy } from "./config.js";
import type { Family } from "./families.js";
import { LazyKeyParts } from "./rate-key-lazy.js";
import { type PolicyShape, type SyncPart, shapeOf } from "./rate-key-parts.js";
import { ReplyView } from "./reply-view.js";

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
export class RateKeyState extends LazyKeyParts {
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

  constructor(
    readonly subject: string,
    /** The store key, or the key's family (the key is then built when first needed). */
    origin: string | Family,
    /** Replaced in place by a tuning-only change (same store key), which keeps the live state. */
    policy: RatePolicy,
    localOnly: boolean,
  ) {
    super();
    this.flags = localOnly ? LOCAL_ONLY : 0;
    const shape = shapeOf(policy);
    this.shape = shape;
    this.origin = origin;
    this.boundary = localOnly ? 0 : Number.POSITIVE_INFINITY;
    // one empty view serves every key of a policy until its first reply (reply-view.ts)
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

  /**
   * Queued past its next look, holding credit that cannot make it due: an admit queues it again. Its
   * refill threshold is then +inf (no grant sets that), the real one kept in `parkedRefillBelow`.
   */
  get parked(): boolean {
    return this.refillBelow === Number.POSITIVE_INFINITY;
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

  /**
   * A forgotten key's sync part and reply view, reset for a new subject of its family (spare-parts.ts);
   * undefined while anything could still read or write them (a round, a waiter, the schedule). The
   * key itself reads defaults from then on, and makes itself a new part if it is ever written to.
   */
  shed(): SyncPart | undefined {
    const part = this.sync;
    if (part === undefined || !this.retired) return undefined;
    if (part.syncing || part.awake || part.riding || part.waiters > 0 || part.inflight > 0) return undefined;
    this.sync = undefined;
    const view = this.view;
    this.view = this.shape.emptyView;
    part.reset(view instanceof ReplyView ? view : undefined);
    return part;
  }

  /** A new key takes a forgotten key's part (shed) before anything is written to its own. */
  reuse(part: SyncPart): void {
    if (this.sync === undefined) this.sync = part;
  }

  /** A forgotten key's reply view this key's part came with, for its first reply (taken once). */
  takeSpareView(): ReplyView | undefined {
    const sync = this.sync;
    if (sync?.spareView === undefined) return undefined;
    const view = sync.spareView;
    sync.spareView = undefined;
    return view;
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
