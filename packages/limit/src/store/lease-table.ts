import { saturatingAdd } from "./algorithm.js";

/** What a key's leases hold at store time `now`, as the scripts sum them. */
export interface Held {
  /** `pod` holds a lease that has not expired. */
  mineLive: boolean;
  /** `pod`'s credit (0 without a live lease). */
  mine: number;
  /** Every other replica's live credit, saturated. */
  others: number;
}

interface Entry {
  credit: number;
  expiry: number;
}

/**
 * A key's fields with an expiry (MemoryStore's leases `L:<pod>` and push totals `P:<id>:<pod>`):
 * the first field lives in the table itself, others in a map made when a second one comes. Most keys
 * have one replica and one push id, and a store keeps a table per key: a map each would triple a
 * key's size. Written in place: a field rewritten every sync stays the same object, so nothing new
 * hangs off the long-lived table (no garbage promoted, nothing for each scavenge to trace).
 */
export class LeaseTable {
  private field: string | undefined = undefined;
  private credit = 0;
  private expiry = 0;
  private more: Map<string, Entry> | undefined = undefined;

  /** Fields held (expired ones not yet dropped included). */
  get size(): number {
    return (this.field === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  /** The field's credit, expired or not; undefined when the table does not hold it. */
  creditOf(field: string): number | undefined {
    if (field === this.field) return this.credit;
    return this.more?.get(field)?.credit;
  }

  /** Sets the field's credit and expiry (store ms). */
  hold(field: string, credit: number, expiry: number): void {
    // the name held stays: a caller's new string for it would hang young off the old table
    if (this.field === undefined) this.field = field;
    if (field === this.field) {
      this.credit = credit;
      this.expiry = expiry;
      return;
    }
    this.more ??= new Map();
    const entry = this.more.get(field);
    if (entry === undefined) this.more.set(field, { credit, expiry });
    else {
      entry.credit = credit;
      entry.expiry = expiry;
    }
  }

  delete(field: string): void {
    if (field === this.field) this.promote();
    else this.more?.delete(field);
  }

  /** Drops the fields whose expiry is at or before `now`. */
  dropExpired(now: number): void {
    if (this.more !== undefined) for (const [f, e] of this.more) if (e.expiry <= now) this.more.delete(f);
    if (this.field !== undefined && this.expiry <= now) this.promote();
  }

  /** Drops expired fields, then sums what `pod` and the others hold. */
  collect(pod: string, now: number): Held {
    this.dropExpired(now);
    const held: Held = { mineLive: false, mine: 0, others: 0 };
    if (this.field === undefined) return held;
    this.count(held, pod, this.field, this.credit);
    if (this.more !== undefined) for (const [f, e] of this.more) this.count(held, pod, f, e.credit);
    return held;
  }

  private count(held: Held, pod: string, field: string, credit: number): void {
    if (field === pod) {
      held.mineLive = true;
      held.mine = credit;
    } else held.others = saturatingAdd(held.others, credit);
  }

  // The inline field goes: one from the map (if any) takes its place.
  private promote(): void {
    this.field = undefined;
    const more = this.more;
    if (more === undefined) return;
    for (const [f, e] of more) {
      more.delete(f);
      this.field = f;
      this.credit = e.credit;
      this.expiry = e.expiry;
      break;
    }
    if (more.size === 0) this.more = undefined;
  }
}
