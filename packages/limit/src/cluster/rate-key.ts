import { capacity, emptyWindow } from "../store/algorithm.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import { Waitlist } from "./admission.js";
import type { RatePolicy } from "./config.js";
import type { Family } from "./families.js";

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

/** What every key of one policy derives from it alike. */
interface PolicyShape {
  alg: AlgorithmCode;
  windows: readonly WindowSpec[];
  capacities: readonly number[];
  minCapacity: number;
  minWindowMs: number;
  head: number;
  headLimit: number;
  emptyView: StoreView;
}

// A family's policy object is shared by all its subjects (and equal setPolicy policies are shared
// by the subject table): derive once.
const shapes = new WeakMap<RatePolicy, PolicyShape>();

function shapeOf(policy: RatePolicy): PolicyShape {
  let shape = shapes.get(policy);
  if (shape === undefined) {
    const capacities = policy.windows.map((w) => capacity(policy.alg, w));
    let head = 0;
    policy.windows.forEach((w, i) => {
      const h = policy.windows[head]!;
      if (w.limit / w.windowMs < h.limit / h.windowMs) head = i;
    });
    shape = {
      alg: policy.alg,
      windows: policy.windows,
      capacities,
      minCapacity: Math.min(...capacities),
      minWindowMs: Math.min(...policy.windows.map((w) => w.windowMs)),
      head,
      headLimit: policy.windows[head]!.limit,
      emptyView: Object.freeze({
        at: Number.NEGATIVE_INFINITY,
        windows: Object.freeze(policy.windows.map(emptyWindow)) as WindowState[],
        reservedOthers: 0,
        answered: false,
      }),
    };
    shapes.set(policy, shape);
  }
  return shape;
}

/** The rarely used part of a key's state, made on first use (most keys never need it). */
class RareState {
  exhaustedUntil = Number.NEGATIVE_INFINITY;
  boundaryAdmitted = -1;
  boundaryTime = 0;
  overrunSinceView = 0;
  degradedCache: { replicas: number; windows: WindowSpec[] } | undefined = undefined;
}

/** A push id: names one key state's push total in the store (random, base 36). */
function newPushId(): string {
  return (Math.random() * 2 ** 52).toString(36).replace(".", "");
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
  /** Store time the smallest window the credit was taken in ends (credit is not trusted past it while the store fails). */
  creditWindowEnd = Number.POSITIVE_INFINITY;
  /** Fewer unused credits than this asks the loop for an early refill. */
  refillBelow = 0;
  /** An early refill was asked for and not answered yet. */
  refillWanted = false;
  /** Store time at which local-only credit must be re-checked (+inf for synced keys). */
  boundary: number;
  // Header snapshot, taken after each reply.
  hdrRemaining = 0;
  hdrAdmitted = 0;
  hdrReset = 0;
  hdrResetMs = 0;

  // Sync side.
  /** `admitted` as far as the store has been told (sent, possibly still in flight). */
  pushed = 0;
  /** Admits in the request in flight. */
  inflight = 0;
  syncing = false;
  /** Units wanted by requests waiting on a sync. */
  waiters = 0;
  denied = 0;
  /** Index (store time, smallest window) of the last window this replica admitted or denied the key in; -1: never. */
  usedWindow = -1;
  sendSeq = 0;
  doneSeq = 0;
  lastSync = Number.NEGATIVE_INFINITY;
  /** Admits per ms. */
  ewma = 0;
  view: StoreView;
  /** The family this key's policy came from (undefined: setPolicy); such keys are evicted when idle. */
  family: Family | undefined = undefined;
  /** Local time the sync schedule looks at this key next (+inf: not queued). */
  dueAt = Number.POSITIVE_INFINITY;
  /** Waiting to ride along with the next round (slack 0.5). */
  riding = false;
  /** Removed, replaced or evicted: never synced again. */
  retired = false;
  /** A local-only key's window counts (fail-static.ts), remembered to skip a lookup by store key. */
  localEntry: object | undefined = undefined;
  // Made on first use: the push id (first push), the waitlist (first wait), the rare fields.
  private pushIdValue: string | undefined = undefined;
  private waitlistValue: Waitlist | undefined = undefined;
  private rare: RareState | undefined = undefined;

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
