/** A request waiting on a key's next sync reply. */
export interface Wakeable {
  wake(): void;
}

/** Wakes the requests waiting on a key's next sync reply. */
export class Waitlist {
  // made on the first wait: most keys never have a request waiting
  private waiting: Wakeable[] | undefined;

  add(w: Wakeable): void {
    if (this.waiting === undefined) this.waiting = [w];
    else this.waiting.push(w);
  }

  /** Forgets every waiter without waking it (their waits ended: timed out, or the key was forgotten). */
  clear(): void {
    this.waiting = undefined;
  }

  notifyAll(): void {
    if (this.waiting === undefined || this.waiting.length === 0) return;
    const woken = this.waiting;
    this.waiting = undefined;
    for (const w of woken) w.wake();
  }
}
