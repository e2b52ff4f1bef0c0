/**
 * Calls and failures over a rolling window cut into equal buckets: a bucket older than the window
 * is reused for the current one, so memory stays fixed per key.
 */
export class RollingCounts {
  private readonly bucketMs: number;
  /** Per bucket: its epoch (bucket number since time 0), its calls, its failures. */
  private readonly cells: Float64Array;
  private newest = Number.NEGATIVE_INFINITY;

  constructor(
    readonly buckets: number,
    windowMs: number,
  ) {
    this.bucketMs = windowMs / buckets;
    this.cells = new Float64Array(buckets * 3).fill(Number.NaN);
  }

  /** Counts one call at `now`; `failed` also counts it as a failure. */
  add(now: number, failed: boolean): void {
    const epoch = Math.floor(now / this.bucketMs);
    const i = (((epoch % this.buckets) + this.buckets) % this.buckets) * 3;
    const cells = this.cells;
    if (cells[i] !== epoch) {
      cells[i] = epoch;
      cells[i + 1] = 0;
      cells[i + 2] = 0;
    }
    cells[i + 1]!++;
    if (failed) cells[i + 2]!++;
    if (epoch > this.newest) this.newest = epoch;
  }

  /** Calls and failures in the buckets that still overlap the window ending at `now`. */
  sums(now: number): { total: number; failures: number } {
    const epoch = Math.floor(now / this.bucketMs);
    let total = 0;
    let failures = 0;
    const cells = this.cells;
    for (let i = 0; i < cells.length; i += 3) {
      if (epoch - cells[i]! < this.buckets) {
        total += cells[i + 1]!;
        failures += cells[i + 2]!;
      }
    }
    return { total, failures };
  }

  /** Whether nothing counted is still inside the window ending at `now`. */
  idleAt(now: number): boolean {
    return Math.floor(now / this.bucketMs) - this.newest >= this.buckets;
  }

  clear(): void {
    this.cells.fill(Number.NaN);
    this.newest = Number.NEGATIVE_INFINITY;
  }
}
