import { FIXED_WINDOW } from "../store/algorithm-code.js";
import type { RateReply } from "../store/types.js";
import { dropStaleDirect, holdDirectUntil } from "./direct-units.js";
import { ledgerOf } from "./ledger.js";
import type { RateKeyState } from "./rate-key.js";
import { windowEnd } from "./sync-maths.js";

/**
 * Reserve then settle (see docs/protocol.md#s2-10): a request is admitted on an estimate, then
 * settled with `delta` = actual − estimate once its real cost is known.
 */

/** A `settle` argument is out of range; `field` names it (`delta` or `takenAt`). */
export class InvalidSettleError extends RangeError {
  override readonly name = "InvalidSettleError";
  constructor(
    readonly field: "delta" | "takenAt",
    value: number,
  ) {
    super(
      field === "delta"
        ? `delta must be a safe integer (actual - estimate), got ${String(value)}`
        : `takenAt must be a finite store time (ms), got ${String(value)}`,
    );
  }
}

export function checkSettle(delta: number, takenAt: number): void {
  if (!Number.isSafeInteger(delta)) throw new InvalidSettleError("delta", delta);
  if (!Number.isFinite(takenAt)) throw new InvalidSettleError("takenAt", takenAt);
}

/**
 * Applies a settlement at store time `t`; returns the units applied (delta for a charge, minus the
 * units returned for a refund, 0 when the refund's window is over).
 * - A charge (delta > 0) counts at once: `admitted` grows, past credit if it must (debt: requests are
 *   denied until a sync grants again); the next sync pushes it with the other admits.
 * - A refund (delta < 0) returns units only while the smallest window `takenAt` fell in is current:
 *   `admitted` shrinks. Units not pushed yet are never pushed; units the store already counted leave
 *   `pushed` ahead of `admitted`, so the next admits reuse them unpushed, and they lapse when that
 *   window ends (as unspent direct units do, direct-units.ts).
 */
export function settleKey(k: RateKeyState, delta: number, takenAt: number, t: number): number {
  const w = k.minWindowMs;
  const idx = Math.floor(t / w);
  if (delta > 0) {
    k.admitted += delta;
    const l = ledgerOf(k);
    if (l.extraWindow !== idx) {
      l.extraWindow = idx;
      l.extraUnits = 0;
      l.debtNoted = 0;
    }
    l.extraUnits += delta;
    return delta;
  }
  if (delta === 0 || Math.floor(takenAt / w) !== idx) return 0;
  dropStaleDirect(k, t);
  const back = Math.min(-delta, k.admitted);
  k.admitted -= back;
  if (!k.localOnly && k.pushed > k.admitted) holdDirectUntil(k, windowEnd(t, w));
  return back === 0 ? 0 : -back;
}

/**
 * A fixed window forgets its count when it ends, so the part of this replica's push that took the
 * window past its capacity, up to its extra charges settled in that window, is charged again in the
 * next one: the debt is repaid from the next budget. Each push is blamed only for the units it added
 * above the capacity, so replicas pushing one after another repay the overshoot once between them.
 * Sliding windows (the previous count weighs in) and token buckets (the tat) carry debt on their own.
 */
export function noteDebt(k: RateKeyState, hits: number, reply: RateReply): void {
  const l = k.ledger;
  if (l === undefined || k.alg !== FIXED_WINDOW || l.extraUnits === 0 || hits === 0) return;
  const idx = Math.floor(reply.now / k.minWindowMs);
  if (idx !== l.extraWindow || (l.debt > 0 && l.debtWindow !== idx)) return;
  let over = 0;
  for (let i = 0; i < k.windows.length; i++) {
    if (k.windows[i]!.windowMs !== k.minWindowMs) continue;
    over = Math.max(over, reply.windows[i]!.cur - k.capacities[i]!);
  }
  const blamed = Math.min(hits, Math.ceil(over), l.extraUnits - l.debtNoted);
  if (!(blamed > 0)) return;
  l.debt += blamed;
  l.debtNoted += blamed;
  l.debtWindow = idx;
}

/** At the first sync of a later window, the debt noted is added to the admits to push. */
export function carryDebt(k: RateKeyState, t: number): void {
  const l = k.ledger;
  if (l !== undefined && l.debt > 0 && Math.floor(t / k.minWindowMs) > l.debtWindow) {
    k.admitted += l.debt;
    l.debt = 0;
  }
}
