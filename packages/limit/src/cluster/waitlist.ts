/** A request waiting on a key's next sync reply. */
export interface Wakeable {
  wake(): void;
}

/** Wakes the requests waiting on a key's next sync reply. */
export class Waitlist {
  // made on the first wait (most keys never have a request waiting), then kept: a new array per
  // reply, stored into a long-lived key, outlives young collections while marking runs
  private waiting: Wakeable[] | undefined;

  add(w: Wakeable): void {
    if (this.waiting === undefined) this.waiting = [w];
    else this.waiting.push(w);
  }

  /** Forgets every waiter without waking it (their waits ended: timed out, or the key was forgotten). */
  clear(): void {
    if (this.waiting !== undefined) this.waiting.length = 0;
  }

  notifyAll(): void {
    const woken = this.waiting;
    if (woken === undefined || woken.length === 0) return;
    const n = woken.length;
    for (let i = 0; i < n; i++) (woken[i] as Wakeable).wake();
    // a waiter that waited again at once, within its wake, stays for the next reply
    if (woken.length === n) woken.length = 0;
    else woken.splice(0, n);
  }
}
