import { emptyWindow } from "../store/algorithm.js";
import { rateKeyTtlMs } from "../store/request.js";
import { TimeQueue } from "../store/time-queue.js";
import type { WindowSpec, WindowState } from "../store/types.js";
import type { RateKeyState } from "./rate-key.js";

/** Window counts of keys decided locally (fail-static.ts decides with them), per key or by store key. */

// Expired entries go when touched; a full sweep every so many lookups bounds the rest.
const SWEEP_EVERY = 4096;

/**
 * A local-only key's window counts, held by the key as its view (a StoreView over the same window
 * states). The first window's counts live in the entry itself: one object fewer per key.
 */
export class LocalEntry implements WindowState {
  idx = 0;
  cur = 0;
  prev = 0;
  tat = 0;
  readonly states: WindowState[];
  /** The last refresh (local ms): the view's time. */
  at = Number.NEGATIVE_INFINITY;
  /** Credit this replica holds against the windows (0: none). */
  lease = 0;

  /** Empty counts of `windows` windows, or those kept for a key that comes back. */
  constructor(windows: number, kept?: readonly WindowState[]) {
    const states = new Array<WindowState>(windows);
    states[0] = this;
    for (let i = 1; i < windows; i++) states[i] = kept?.[i] ?? emptyWindow();
    this.states = states;
    if (kept !== undefined) Object.assign(this, copyState(kept[0]!));
  }

  // The StoreView fields that never change for local counts.
  get windows(): WindowState[] {
    return this.states;
  }
  get reservedOthers(): number {
    return 0;
  }
  get answered(): boolean {
    return true;
  }
}

function copyState(s: WindowState): WindowState {
  return { idx: s.idx, cur: s.cur, prev: s.prev, tat: s.tat };
}

/** Counts kept by store key: a let-go local-only key's, or a synced key's fail-static ones. */
export class StoredCounts {
  /** Credit this replica holds against the windows (0: none). */
  lease = 0;
  /** The outage (its last good round's local time) whose known admits were counted in (fail-static). */
  seededFor: number | undefined = undefined;
  /** The key's `admitted` through which its admits are counted in these windows (fail-static, recovery cap). */
  countedThrough = 0;

  constructor(
    public states: WindowState[],
    /** Store time after which the counts are forgotten, as a store key would expire. */
    public expiresAt: number,
  ) {}
}

/** Window counts of keys decided locally; they outlive a key's state like store keys would. */
export class LocalWindows {
  private readonly entries = new Map<string, StoredCounts>();
  private lookups = 0;
  /** Released entries, by the time they may be forgotten. */
  private readonly expiring = new TimeQueue<string>(1000);

  /** Entries held (expired ones not yet dropped included). */
  get size(): number {
    return this.entries.size;
  }

  /** Drops a key's counts (its subject was removed). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /**
   * The counts of a local-only key. The key holds them itself as its view (no table entry while it
   * lives; old counts age out of its windows as a store's would); the table holds only those of keys
   * let go (`park`) until their windows are over, for a subject that comes back.
   */
  entryOf(k: RateKeyState, t: number): LocalEntry {
    if (++this.lookups >= SWEEP_EVERY) this.sweepExpired(t);
    const held = k.view;
    const n = k.windows.length;
    if (held instanceof LocalEntry && held.states.length === n) return held;
    if (this.entries.size > 0) {
      const e = this.entries.get(k.storeKey);
      if (e !== undefined) {
        this.entries.delete(k.storeKey);
        if (t <= e.expiresAt && e.states.length === n) return new LocalEntry(n, e.states);
      }
    }
    return new LocalEntry(n);
  }

  /** A local-only key let go (evicted): its counts stay, by store key, until its windows are over. */
  park(k: RateKeyState, t: number): void {
    const e = k.view;
    if (!(e instanceof LocalEntry)) return;
    e.lease = 0;
    const kept = new StoredCounts(e.states, t + rateKeyTtlMs(k.windows, 0));
    this.entries.set(k.storeKey, kept);
    this.expiring.add(k.storeKey, kept.expiresAt + 1000);
  }

  /** Lets `key`'s credit go: the entry is forgotten once its windows are over, as a store key expires. */
  release(key: string, windows: readonly WindowSpec[], t: number): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    e.lease = 0;
    e.expiresAt = t + rateKeyTtlMs(windows, 0);
    this.expiring.add(key, e.expiresAt + 1000);
  }

  /** Store time the next released entry may be dropped (+Infinity when none is queued). */
  nextSweepAt(): number {
    return this.expiring.nextAt();
  }

  /** Drops released entries whose time is up. */
  sweep(t: number): void {
    this.expiring.popDue(t, (key) => {
      const e = this.entries.get(key);
      if (e !== undefined && t > e.expiresAt) this.entries.delete(key);
      return true;
    });
  }

  /** The live fail-static entry of `key` at store time `t` (a fresh one when absent or expired). */
  entry(key: string, windows: number, t: number): StoredCounts {
    if (++this.lookups >= SWEEP_EVERY) this.sweepExpired(t);
    let e = this.entries.get(key);
    if (e !== undefined && t > e.expiresAt) e = undefined;
    if (e === undefined) {
      e = new StoredCounts(emptyStates(windows), t);
      this.entries.set(key, e);
    }
    if (e.states.length !== windows) e.states = emptyStates(windows);
    return e;
  }

  private sweepExpired(t: number): void {
    this.lookups = 0;
    for (const [key, e] of this.entries) if (t > e.expiresAt) this.entries.delete(key);
  }
}

/** `n` empty window states, in an array of exactly n (one pushed to grows room for 17: 150 bytes a key). */
function emptyStates(n: number): WindowState[] {
  const states = new Array<WindowState>(n);
  for (let i = 0; i < n; i++) states[i] = emptyWindow();
  return states;
}
