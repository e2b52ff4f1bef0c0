import { ledgerOf } from "./ledger.js";
import type { RateKeyState } from "./rate-key.js";

/**
 * Direct units (last-mile admits, docs/protocol.md#s3-3) are charged by the store in the window it
 * admitted them in. A waiter that could not use them (a cost above what came) leaves them as credit,
 * and `pushed` runs ahead of `admitted` by them: the next admits are not pushed. Spent in a later
 * window, they would count there and be charged nowhere, so they lapse when their window ends.
 * `boundary` (otherwise +inf for a synced key) sends the hot path here once that window is over.
 */

/** The direct units a reply handed over stop at the end of the smallest window they were charged in. */
export function holdDirectUntil(k: RateKeyState, windowEndT: number): void {
  k.boundary = windowEndT;
}

/**
 * Drops unspent direct units past their window (store time `t`). Returns true when credit changed.
 * A round in flight when they lapse is corrected as its reply lands (ledger.ts, `directDropped`).
 */
export function dropStaleDirect(k: RateKeyState, t: number): boolean {
  if (k.localOnly || t < k.boundary) return false;
  k.boundary = Number.POSITIVE_INFINITY;
  const lead = k.pushed - k.admitted;
  if (!(lead > 0)) return false;
  k.pushed -= lead;
  k.credit = Math.max(k.admitted, k.credit - lead);
  ledgerOf(k).directDropped += lead;
  return true;
}
