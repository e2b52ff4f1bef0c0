/**
 * Items by due time, in slots of `slotMs`: adding is a push (and a heap insert for a new slot),
 * finding what is due costs nothing for the items not due. An item may sit in several slots at once;
 * callers keep their own due time and ignore stale visits.
 */
export class TimeQueue<T> {
  private readonly slots = new Map<number, T[]>();
  /** First unvisited index of a slot whose visit stopped part way (absent: 0). */
  private readonly starts = new Map<number, number>();
  /** Slot numbers with items, as a binary min-heap. */
  private readonly heap: number[] = [];

  constructor(private readonly slotMs = 1) {}

  /** Items queued (stale ones included). */
  get length(): number {
    let n = 0;
    for (const items of this.slots.values()) n += items.length;
    for (const from of this.starts.values()) n -= from;
    return n;
  }

  /** Nothing queued, stale items included. */
  isEmpty(): boolean {
    return this.heap.length === 0;
  }

  /** Queues `item` to be visited once `at` has passed (in the slot holding `at`). */
  add(item: T, at: number): void {
    const slot = Math.floor(at / this.slotMs);
    const items = this.slots.get(slot);
    if (items !== undefined) items.push(item);
    else {
      this.slots.set(slot, [item]);
      this.push(slot);
    }
  }

  /** The earliest queued time (the start of its slot), or +Infinity. */
  nextAt(): number {
    return this.heap.length === 0 ? Number.POSITIVE_INFINITY : this.heap[0]! * this.slotMs;
  }

  /**
   * Visits the items of every slot that starts at or before `now`, earliest first; `visit` returning
   * false stops, and that item and those not visited stay queued.
   */
  popDue(now: number, visit: (item: T) => boolean): void {
    const last = Math.floor(now / this.slotMs);
    while (this.heap.length > 0 && this.heap[0]! <= last) {
      const slot = this.popHead();
      const items = this.slots.get(slot)!;
      // taken out first: what visit() adds, to this slot too, goes in afresh
      this.slots.delete(slot);
      const from = this.starts.get(slot) ?? 0;
      if (from > 0) this.starts.delete(slot);
      for (let i = from; i < items.length; i++) {
        if (!visit(items[i]!)) {
          this.putBack(slot, items, i);
          return;
        }
      }
    }
  }

  // The unvisited rest of a slot stays where it is (a cursor, not a copy: a slot of a million items
  // visited a round at a time would otherwise be copied once per round).
  private putBack(slot: number, items: T[], from: number): void {
    const added = this.slots.get(slot);
    if (added === undefined) {
      this.slots.set(slot, items);
      if (from > 0) this.starts.set(slot, from);
      this.push(slot);
      return;
    }
    // visit() queued more in this very slot meanwhile (rare): the rest goes first
    const rest = items.slice(from);
    for (const x of added) rest.push(x);
    this.slots.set(slot, rest);
  }

  private popHead(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && heap[l]! < heap[m]!) m = l;
      if (r < heap.length && heap[r]! < heap[m]!) m = r;
      if (m === i) return top;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }

  private push(slot: number): void {
    const heap = this.heap;
    heap.push(slot);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p]! <= slot) break;
      heap[i] = heap[p]!;
      heap[p] = slot;
      i = p;
    }
  }
}
