/**
 * A small seeded PRNG (mulberry32) plus the samplers the simulation needs. Seeded runs must
 * print identical output, so nothing here reads Math.random or the wall clock.
 */
export class Rng {
  private state: number;
  private spare: number | undefined;

  constructor(seed: number) {
    // Mix the seed so nearby seeds start far apart.
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0x6a09e667) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Standard normal (Box-Muller, the second value kept for the next call). */
  normal(): number {
    if (this.spare !== undefined) {
      const s = this.spare;
      this.spare = undefined;
      return s;
    }
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Poisson(lambda): inversion for small means, a rounded normal for large ones (exp underflows). */
  poisson(lambda: number): number {
    if (!(lambda > 0)) return 0;
    if (lambda > 40) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const u = this.next();
    let p = Math.exp(-lambda);
    let cdf = p;
    let k = 0;
    while (u > cdf && k < 1000) {
      k++;
      p *= lambda / k;
      cdf += p;
    }
    return k;
  }
}

/** Draws an item from a weighted list (cumulative table, one uniform per draw). */
export class WeightedPicker<T> {
  private readonly items: T[];
  private readonly cumulative: number[];

  constructor(entries: ReadonlyArray<{ item: T; weight: number }>) {
    if (entries.length === 0) throw new RangeError("WeightedPicker: at least one entry is required");
    this.items = entries.map((e) => e.item);
    let sum = 0;
    this.cumulative = entries.map((e) => {
      sum += e.weight;
      return sum;
    });
  }

  pick(rng: Rng): T {
    if (this.items.length === 1) return this.items[0]!;
    const total = this.cumulative[this.cumulative.length - 1]!;
    const u = rng.next() * total;
    for (let i = 0; i < this.cumulative.length; i++) if (u < this.cumulative[i]!) return this.items[i]!;
    return this.items[this.items.length - 1]!;
  }
}
