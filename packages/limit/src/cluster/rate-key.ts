import { capacity, emptyWindow } from "../store/algorithm.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import { Waitlist } from "./admission.js";
import type { RatePolicy } from "./config.js";
import type { Family } from "./families.js";
import type { KeyLedger } from "./ledger.js";

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
  capacities: readonly number[];
  minCapacity: number;
  minWindowMs: number;
  head: number;
  headLimit: number;
  emptyView: StoreView;
}

// A family's policy object is shared by all its subjects: derive once.
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

/**
 * The per-replica state of one rate-limited subject (see docs/protocol.md#s2-1): credit to admit
 * from, admits the store has not counted yet, and where the key stands in its sync cycle.
 */
export class RateKeyState {
  readonly alg: AlgorithmCode;
  readonly windows: readonly WindowSpec[];
  readonly capacities: readonly number[];
  readonly minCapacity: number;
  readonly minWindowMs: number;
  /** Index of the head window: the lowest limit per ms, first on a tie. */
  readonly head: number;
  readonly headLimit: number;

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
  /** Admits in the request in flight. */
  inflight = 0;
  syncing = false;
  /** Units wanted by requests waiting on a sync. */
  waiters = 0;
  denied = 0;
  /** Names this key state's push total in the store (idempotent rounds): unique per instance. */
  readonly pushId = (Math.random() * 2 ** 52).toString(36).replace(".", "");
  /** Direct units dropped, settled charges and debt (ledger.ts): made on first use. */
  ledger: KeyLedger | undefined = undefined;
  /** Units admitted without a reply (overruns) since the last reply was applied. */
  overrunSinceView = 0;
  /** Index (store time, smallest window) of the last window this replica admitted or denied the key in; -1: never. */
  usedWindow = -1;
  sendSeq = 0;
  doneSeq = 0;
  lastSync = Number.NEGATIVE_INFINITY;
  /** Admits per ms. */
  ewma = 0;
  /** Local time before which asking for more credit gets nothing (the store said when a unit frees). */
  exhaustedUntil = Number.NEGATIVE_INFINITY;
  /** `admitted` at the last window-boundary snapshot (-1: none) and the store time it is charged at. */
  boundaryAdmitted = -1;
  boundaryTime = 0;
  view: StoreView;
  readonly waitlist = new Waitlist();
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
  private degradedCache: { replicas: number; windows: WindowSpec[] } | undefined;

  constructor(
    readonly subject: string,
    readonly storeKey: string,
    /** Replaced in place by a tuning-only change (same store key), which keeps the live state. */
    public policy: RatePolicy,
    readonly localOnly: boolean,
  ) {
    const shape = shapeOf(policy);
    this.alg = policy.alg;
    this.windows = policy.windows;
    this.capacities = shape.capacities;
    this.minCapacity = shape.minCapacity;
    this.minWindowMs = shape.minWindowMs;
    this.head = shape.head;
    this.headLimit = shape.headLimit;
    this.boundary = localOnly ? 0 : Number.POSITIVE_INFINITY;
    // replaced, never changed in place, by every reply: one empty view serves every key of a policy
    this.view = shape.emptyView;
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
    if (this.degradedCache?.replicas !== replicas) {
      const share = (n: number) => Math.max(1, Math.ceil(n / replicas));
      this.degradedCache = {
        replicas,
        windows: this.windows.map((w) => ({
          limit: share(w.limit),
          windowMs: w.windowMs,
          burst: share(w.burst),
        })),
      };
    }
    return this.degradedCache.windows;
  }
}
