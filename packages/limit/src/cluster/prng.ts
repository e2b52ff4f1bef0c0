/**
 * A small seeded PRNG (SplitMix32-style mixing over a 32-bit counter): the same seed gives the same
 * sequence on every platform, so simulations and property tests replay exactly.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 4_294_967_296;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /**
   * A Poisson(mean) count: inversion from one uniform for the small means of per-step arrivals,
   * a rounded normal for large means (where exp(-mean) underflows).
   */
  poisson(mean: number): number {
    if (!(mean > 0)) return 0;
    if (mean > 30) {
      const u = Math.max(this.next(), Number.MIN_VALUE);
      const g = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
      return Math.max(0, Math.round(mean + g * Math.sqrt(mean)));
    }
    const u = this.next();
    let p = Math.exp(-mean);
    let cdf = p;
    let k = 0;
    while (u > cdf && k < 1000) {
      k++;
      p *= mean / k;
      cdf += p;
    }
    return k;
  }
}
