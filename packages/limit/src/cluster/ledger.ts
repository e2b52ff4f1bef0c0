/**
 * Rare per-key bookkeeping, made on a key's first use of it (most keys never need it): direct units
 * dropped as their window ended (direct-units.ts), settled extra charges with their debt (settle.ts),
 * and the largest request waiting (rate-admission.ts).
 */
export class KeyLedger {
  /** Unspent direct (or refunded, already pushed) units dropped as their window ended, ever. */
  directDropped = 0;
  /** Settled extra charges: units this replica charged in smallest window `extraWindow`. */
  extraUnits = 0;
  extraWindow = -1;
  /** Fixed window: units of that extra charge past the window's capacity, charged again in the next one. */
  debt = 0;
  debtWindow = -1;
  /** Debt noted in `extraWindow` so far (never more than `extraUnits`). */
  debtNoted = 0;
  /** The largest cost among the requests waiting on a sync now (the request's `head`): 0 none above one unit, 1 a one-unit request a Pacer keeps within its share. */
  head = 0;
}

/** The key's ledger, made on first use. */
export function ledgerOf(k: { ledger: KeyLedger | undefined }): KeyLedger {
  k.ledger ??= new KeyLedger();
  return k.ledger;
}

/** Direct units dropped so far (0 for a key without a ledger). */
export function droppedSoFar(k: { ledger: KeyLedger | undefined }): number {
  return k.ledger === undefined ? 0 : k.ledger.directDropped;
}
