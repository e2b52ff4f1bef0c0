import { capacity, emptyWindow } from "../store/algorithm.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import type { KeyTuning, RatePolicy } from "./config.js";

/** What the last store reply said about a key's windows. */
export interface StoreView {
  /** Local monotonic time the reply arrived. */
  at: number;
  windows: WindowState[];
  /** Credit other replicas held in live leases. */
  reservedOthers: number;
  /** False until the first reply. */
  fresh: boolean;
}

/** Wakes the requests waiting on a key's next sync reply. */
class Waitlist {
  private listeners: Array<() => void> = [];

  add(listener: () => void): void {
    this.listeners.push(listener);
  }

  notifyAll(): void {
    if (this.listeners.length === 0) return;
    const woken = this.listeners;
    this.listeners = [];
    for (const listener of woken) listener();
  }
}

/** The per-replica state of one rate-limited subject (spec 2.1). */
export class RateKey {
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
  /** Early-sync threshold: fewer unused credits than this asks for a refill. */
  half = 0;
  wanted = false;
  /** Store time at which local-only credit must be re-checked (+inf for synced keys). */
  boundary: number;
  // Header snapshot, taken after each reply.
  hdrRemaining = 0;
  hdrAdmitted = 0;
  hdrReset = 0;
  hdrResetMs = 0;

  // Sync side.
  pushed = 0;
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
  exhaustedUntil = Number.NEGATIVE_INFINITY;
  /** `admitted` at the last boundary snapshot (-1: none) and the store time it is charged at. */
  oldA = -1;
  oldT = 0;
  view: StoreView;
  readonly waitlist = new Waitlist();
  private degradedCache: { replicas: number; windows: WindowSpec[] } | undefined;

  constructor(
    readonly subject: string,
    readonly storeKey: string,
    readonly policy: RatePolicy,
    readonly localOnly: boolean,
  ) {
    this.alg = policy.alg;
    this.windows = policy.windows;
    this.capacities = policy.windows.map((w) => capacity(policy.alg, w));
    this.minCapacity = Math.min(...this.capacities);
    this.minWindowMs = Math.min(...policy.windows.map((w) => w.windowMs));
    let head = 0;
    policy.windows.forEach((w, i) => {
      const h = policy.windows[head]!;
      if (w.limit / w.windowMs < h.limit / h.windowMs) head = i;
    });
    this.head = head;
    this.headLimit = policy.windows[head]!.limit;
    this.boundary = localOnly ? 0 : Number.POSITIVE_INFINITY;
    this.view = {
      at: Number.NEGATIVE_INFINITY,
      windows: policy.windows.map(emptyWindow),
      reservedOthers: 0,
      fresh: false,
    };
  }

  /** Admits not yet counted by the store: unpushed plus in flight. */
  localExtra(): number {
    return Math.max(0, this.admitted - this.pushed) + this.inflight;
  }

  /** Credit held and not spent. */
  unused(): number {
    return Math.max(0, this.credit - this.admitted);
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

/** The per-replica state of one concurrency-capped subject (spec 3.7). */
export class ConcurrencyKey {
  /** Slots this replica holds now. */
  active = 0;
  /** The ceiling `active` may reach while the credit is valid. */
  allowed = 0;
  validUntil = Number.NEGATIVE_INFINITY;
  /** Slots ever acquired (monotonic), and its value at the last sync's send. */
  acquired = 0;
  acquiredAtSync = 0;
  syncing = false;
  waiters = 0;
  sendSeq = 0;
  doneSeq = 0;
  lastSync = Number.NEGATIVE_INFINITY;
  ewma = 0;
  /** Slots other replicas held at the last reply. */
  others = 0;
  readonly waitlist = new Waitlist();

  constructor(
    readonly subject: string,
    readonly storeKey: string,
    readonly max: number,
    readonly tuning: KeyTuning,
    readonly localOnly: boolean,
  ) {
    if (localOnly) {
      this.allowed = max;
      this.validUntil = Number.POSITIVE_INFINITY;
    }
  }
}
