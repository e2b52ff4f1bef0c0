/**
 * Fair shares between costs for a `Pacer`'s waiters (docs/protocol.md#s3-9): per subject, the units
 * offered to this replica's Pacer and those it admitted, one-unit requests apart from larger ones.
 * A one-unit waiter that would take its class past its share of the offered units is held back while
 * larger requests are being admitted, so the units freeing meanwhile gather for them; one within its
 * share asks as `SHARE_HEAD` and may take units the store keeps for larger requests. A fair central
 * limiter does the same (apps/sim/test/helpers/central-backend.ts, policy `capped`).
 */

/** Counts halve after this long, so the shares follow the recent mix. */
export const SHARE_HALF_LIFE_MS = 10_000;

/** One-unit requests are held back only while a larger request was admitted this recently. */
export const SHARE_HOLD_MS = 10_000;

// [one-unit requests, larger ones]
const ONE = 0;
const LARGER = 1;

/** Offered and admitted units of one subject on one replica, by cost class. */
export class CostShares {
  private readonly offered = [0, 0];
  private readonly admitted = [0, 0];
  private halvedAt: number;
  private largerAt = Number.NEGATIVE_INFINITY;

  constructor(now: number) {
    this.halvedAt = now;
  }

  /** A waiter of `cost` units joined the queue. */
  offer(cost: number, now: number): void {
    this.age(now);
    this.offered[cost > 1 ? LARGER : ONE]! += cost;
  }

  /** A waiter of `cost` units was admitted. */
  admit(cost: number, now: number): void {
    this.age(now);
    this.admitted[cost > 1 ? LARGER : ONE]! += cost;
    if (cost > 1) this.largerAt = now;
  }

  /**
   * Whether a one-unit waiter admitted now would take its class past its share of the offered units
   * while larger requests are being admitted (with none admitted lately, nothing is held back: a
   * larger cost that never fits must not starve the smaller one).
   */
  over(cost: number, now: number): boolean {
    if (cost !== 1 || now - this.largerAt > SHARE_HOLD_MS) return false;
    const oneOffered = this.offered[ONE]!;
    const oneAdmitted = this.admitted[ONE]!;
    const offered = oneOffered + this.offered[LARGER]!;
    const admitted = oneAdmitted + this.admitted[LARGER]!;
    return (oneAdmitted + cost) * offered > oneOffered * (admitted + cost);
  }

  /** Nothing held back any more: the counts may go. */
  idle(now: number): boolean {
    return now - this.largerAt > SHARE_HOLD_MS;
  }

  private age(now: number): void {
    if (now - this.halvedAt < SHARE_HALF_LIFE_MS) return;
    this.halvedAt = now;
    for (let i = 0; i < 2; i++) {
      this.offered[i]! /= 2;
      this.admitted[i]! /= 2;
    }
  }
}

/** Where a waiter of `cost` joins a queue: behind every waiter at least as large (largest first, FIFO
 * within a cost), never ahead of `from` (the head whose check is in flight). */
export function placeByCost(waiters: readonly { cost: number }[], cost: number, from: number): number {
  let i = waiters.length;
  while (i > from && waiters[i - 1]!.cost < cost) i--;
  return i;
}
