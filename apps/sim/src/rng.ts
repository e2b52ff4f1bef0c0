import type { SeededRandom } from "@resil/limit/testing";

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

  pick(rng: SeededRandom): T {
    if (this.items.length === 1) return this.items[0]!;
    const total = this.cumulative[this.cumulative.length - 1]!;
    const u = rng.next() * total;
    for (let i = 0; i < this.cumulative.length; i++) if (u < this.cumulative[i]!) return this.items[i]!;
    return this.items[this.items.length - 1]!;
  }
}
