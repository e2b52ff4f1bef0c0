import { capacity, emptyWindow } from "../store/algorithm.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import type { RatePolicy } from "./config.js";
import type { KeyLedger } from "./ledger.js";
import type { StoreView } from "./rate-key.js";
import type { ReplyView } from "./reply-view.js";
import { Waitlist } from "./waitlist.js";

/** The parts of a key's state that are shared by a policy's keys, or made only when used (rate-key.ts). */

/** What every key of one policy derives from it alike. */
export interface PolicyShape {
  policy: RatePolicy;
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
// The shortest window of every policy shaped in this process; it only grows, so it holds every key's.
const minWindows = new Set<number>();

/** Whether some key's shortest window could end at store time `b` (a boundary with work to do). */
export function someWindowEndsAt(b: number): boolean {
  for (const w of minWindows) if (b % w === 0) return true;
  return false;
}

export function shapeOf(policy: RatePolicy): PolicyShape {
  let shape = shapes.get(policy);
  if (shape === undefined) {
    const capacities = policy.windows.map((w) => capacity(policy.alg, w));
    let head = 0;
    policy.windows.forEach((w, i) => {
      const h = policy.windows[head]!;
      if (w.limit / w.windowMs < h.limit / h.windowMs) head = i;
    });
    shape = {
      policy,
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
    minWindows.add(shape.minWindowMs);
  }
  return shape;
}

/** The rarely used part of a key's state, made on first use (most keys never need it). */
export class RareState {
  exhaustedUntil = Number.NEGATIVE_INFINITY;
  boundaryAdmitted = -1;
  boundaryTime = 0;
  overrunSinceView = 0;
  degradedCache: { replicas: number; windows: WindowSpec[] } | undefined = undefined;
  ledger: KeyLedger | undefined = undefined;
}

const SYNCING = 1;
const RIDING = 2;
const AWAKE = 4;
const IDLE_CREDIT = 8;

/**
 * The sync side of a key's state (see the getters of RateKeyState), made on its first sync. It is
 * also the key's waitlist (a waiting request needs a sync): one object per synced key, not two.
 */
export class SyncPart extends Waitlist {
  inflight: number = 0;
  waiters: number = 0;
  denied: number = 0;
  usedWindow: number = -1;
  sendSeq: number = 0;
  doneSeq: number = 0;
  lastSync: number = Number.NEGATIVE_INFINITY;
  ewma: number = 0;
  dueAt: number = Number.POSITIVE_INFINITY;
  /** A parked key's refill threshold while it is parked (its own is then +inf). */
  parkedRefillBelow: number = 0;
  creditWindowEnd: number = Number.POSITIVE_INFINITY;
  pushId: string | undefined = undefined;
  /** A family key's store key, built on first use. */
  storeKey: string | undefined = undefined;
  rare: RareState | undefined = undefined;
  /** A forgotten subject's reply view, kept for this part's next key to take on its first reply. */
  spareView: ReplyView | undefined = undefined;
  // SYNCING, RIDING, AWAKE and IDLE_CREDIT bits, one field (read through the accessors below).
  private bits = 0;

  get syncing(): boolean {
    return (this.bits & SYNCING) !== 0;
  }
  set syncing(v: boolean) {
    this.bits = v ? this.bits | SYNCING : this.bits & ~SYNCING;
  }
  get riding(): boolean {
    return (this.bits & RIDING) !== 0;
  }
  set riding(v: boolean) {
    this.bits = v ? this.bits | RIDING : this.bits & ~RIDING;
  }
  get awake(): boolean {
    return (this.bits & AWAKE) !== 0;
  }
  set awake(v: boolean) {
    this.bits = v ? this.bits | AWAKE : this.bits & ~AWAKE;
  }
  /** The credit was leased for longer than leaseTtlMs: far below its limit (idle-credit.ts). */
  get idleCredit(): boolean {
    return (this.bits & IDLE_CREDIT) !== 0;
  }
  set idleCredit(v: boolean) {
    this.bits = v ? this.bits | IDLE_CREDIT : this.bits & ~IDLE_CREDIT;
  }

  /** Back to a new part's state, for a new subject (spare-parts.ts); keeps `view` as its spare view. */
  reset(view: ReplyView | undefined): void {
    this.inflight = 0;
    this.waiters = 0;
    this.denied = 0;
    this.usedWindow = -1;
    this.sendSeq = 0;
    this.doneSeq = 0;
    this.lastSync = Number.NEGATIVE_INFINITY;
    this.ewma = 0;
    this.dueAt = Number.POSITIVE_INFINITY;
    this.parkedRefillBelow = 0;
    this.creditWindowEnd = Number.POSITIVE_INFINITY;
    // a new key state needs its own push id (the store keeps the old one's total until it expires)
    this.pushId = undefined;
    this.storeKey = undefined;
    this.bits = 0;
    this.clear();
    this.rare = undefined;
    this.spareView = view;
  }
}

// 10 random base-36 characters per process (about 51 bits): ids of two replicas or two runs do not meet
const PUSH_ID_PREFIX = Array.from({ length: 10 }, () => Math.floor(Math.random() * 36).toString(36)).join("");
let pushIds = 0;

/** A push id: names one key state's push total in the store (the process's prefix and a counter). */
export function newPushId(): string {
  return PUSH_ID_PREFIX + (pushIds++).toString(36);
}
