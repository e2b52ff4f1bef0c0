/** A request waiting on a key's next sync reply. */
export interface Wakeable {
  wake(): void;
}

/** Wakes the requests waiting on a key's next sync reply. */
export class Waitlist {
  // made on the first wait (most keys never have a request waiting), then kept with a spare: a new
  // array per reply, stored into a long-lived key, outlives young collections while marking runs
  private waiting: Wakeable[] | undefined;
  private spare: Wakeable[] | undefined;

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
    // a waiter woken here may wait again at once: it joins the other array
    this.waiting = this.spare ?? [];
    this.spare = undefined;
    for (const w of woken) w.wake();
    woken.length = 0;
    this.spare = woken;
  }
}
