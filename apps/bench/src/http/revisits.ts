/**
 * How long ago a server last got each key it gets again: one run's ages (ms) over a scenario's memory
 * of when each key was last sent to that server.
 */
export class Revisits {
  private ages = new Float64Array(1 << 14);
  private count = 0;

  /** `lastSent[i]`: when key i was last sent to this server (ms; 0: not yet in this scenario). */
  constructor(private readonly lastSent: Float64Array) {}

  /** Key `i` is sent at `nowMs`. */
  sent(i: number, nowMs: number): void {
    const before = this.lastSent[i]!;
    if (before > 0) {
      if (this.count === this.ages.length) {
        const grown = new Float64Array(this.ages.length * 2);
        grown.set(this.ages);
        this.ages = grown;
      }
      this.ages[this.count++] = nowMs - before;
    }
    this.lastSent[i] = nowMs;
  }

  /** Keys sent again in this run. */
  get revisits(): number {
    return this.count;
  }

  /** The median age in seconds, NaN when no key was sent again. */
  medianS(): number {
    if (this.count === 0) return Number.NaN;
    const sorted = this.ages.subarray(0, this.count).sort();
    return sorted[Math.floor(this.count / 2)]! / 1000;
  }
}
