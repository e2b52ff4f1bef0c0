import type { KeyTuning } from "./config.js";
import type { Slot } from "./decision.js";
import type { Family } from "./families.js";
import { Waitlist } from "./waitlist.js";

/** The per-replica state of one concurrency-capped subject (see docs/protocol.md#s3-7). */
export class ConcurrencyKeyState {
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
  /** Acquisitions per ms. */
  ewma = 0;
  /** Slots other replicas held at the last reply. */
  others = 0;
  readonly waitlist = new Waitlist();
  /** The family this key's cap came from (undefined: setPolicy). */
  family: Family | undefined = undefined;
  /** Local time the sync schedule looks at this key next (+inf: not queued). */
  dueAt = Number.POSITIVE_INFINITY;
  /** Removed, replaced or evicted: never synced again. */
  retired = false;

  constructor(
    readonly subject: string,
    readonly storeKey: string,
    public max: number,
    public tuning: KeyTuning,
    readonly localOnly: boolean,
  ) {
    if (localOnly) {
      this.allowed = max;
      this.validUntil = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * A new cap: the slots held stay held (the store key counts them, whatever the cap); slot credit
   * granted under the old cap is dropped, so the next slot is asked for under the new one.
   */
  /** Wakes the requests waiting on this key's next sync reply. */
  notifyWaiters(): void {
    this.waitlist.notifyAll();
  }

  recap(max: number): void {
    this.max = max;
    if (this.localOnly) this.allowed = max;
    else {
      this.allowed = this.active;
      this.validUntil = Number.NEGATIVE_INFINITY;
    }
  }
}

/** A held slot: releases once, locally; the next sync reports the new absolute count. */
export class HeldSlot implements Slot {
  private held = true;

  constructor(private readonly key: ConcurrencyKeyState) {}

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.key.active = Math.max(0, this.key.active - 1);
  }

  [Symbol.dispose](): void {
    this.release();
  }
}
