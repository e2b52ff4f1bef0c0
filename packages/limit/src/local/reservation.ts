import type { Meter } from "./meter.js";

/** `pending` until `commit()` (the debit stays) or `release()` (the debit is refunded once). */
export type ReservationState = "pending" | "committed" | "released";

/**
 * A refundable debit against a meter. `commit()` keeps it; `release()` (or `using`) refunds an
 * uncommitted one exactly once. A window refund applies only if the window has not rolled over.
 */
export class Reservation {
  private current: ReservationState = "pending";

  constructor(
    readonly meter: Meter,
    readonly cost: number,
    readonly epoch: number,
  ) {}

  /** Debits `cost` from `meter` and wraps it, or returns null when it does not fit. */
  static tryReserve(meter: Meter, cost: number): Reservation | null {
    const epoch = meter.tryDebit(cost);
    return epoch === null ? null : new Reservation(meter, cost, epoch);
  }

  get state(): ReservationState {
    return this.current;
  }

  /** Makes the debit permanent; does nothing once committed or released. */
  commit(): void {
    if (this.current === "pending") this.current = "committed";
  }

  /** Refunds an uncommitted debit once; later calls, and calls after `commit()`, do nothing. */
  release(): void {
    if (this.current !== "pending") return;
    this.current = "released";
    this.meter.credit(this.cost, this.epoch);
  }

  [Symbol.dispose](): void {
    this.release();
  }
}
