import type { SeededRandom } from "@resil/limit/testing";
import { ArgsError } from "./errors.js";

/** How requests spread over the subjects of a keys run: evenly, or Zipf with exponent `s`. */
export type Popularity = { kind: "uniform" } | { kind: "zipf"; s: number };

/** Most subjects a keys run simulates (the Zipf table holds one number per subject). */
export const MAX_KEYS = 10_000_000;

/** `--keys N`: a whole number of subjects, 1 .. MAX_KEYS. */
export function parseKeyCount(raw: string): number {
  const n = Number(raw.replaceAll("_", ""));
  if (!Number.isInteger(n) || n < 1 || n > MAX_KEYS) {
    throw new ArgsError(`--keys: expected a whole number from 1 to ${MAX_KEYS}, got "${raw}"`);
  }
  return n;
}

/** `--popularity uniform` or `zipf:S` (S > 0; 1.1 is a typical web popularity). */
export function parsePopularity(raw: string): Popularity {
  const text = raw.trim().toLowerCase();
  if (text === "uniform") return { kind: "uniform" };
  const m = /^zipf(?::(.+))?$/.exec(text);
  const s = m === null ? Number.NaN : m[1] === undefined ? 1 : Number(m[1]);
  if (!(s > 0) || !Number.isFinite(s)) {
    throw new ArgsError(`--popularity: expected uniform or zipf:S with S > 0 (e.g. zipf:1.1), got "${raw}"`);
  }
  return { kind: "zipf", s };
}

/** Draws subject indexes (0 = the most popular) by a popularity. */
export class SubjectPicker {
  private readonly cumulative: Float64Array | undefined;

  constructor(
    readonly count: number,
    readonly popularity: Popularity,
  ) {
    if (popularity.kind === "zipf") {
      const c = new Float64Array(count);
      let sum = 0;
      for (let i = 0; i < count; i++) {
        sum += (i + 1) ** -popularity.s;
        c[i] = sum;
      }
      for (let i = 0; i < count; i++) c[i]! /= sum;
      this.cumulative = c;
    }
  }

  /** The share of all requests subject `i` gets. */
  share(i: number): number {
    const c = this.cumulative;
    if (c === undefined) return 1 / this.count;
    return c[i]! - (i === 0 ? 0 : c[i - 1]!);
  }

  pick(rng: SeededRandom): number {
    const c = this.cumulative;
    if (c === undefined) return Math.min(this.count - 1, Math.floor(rng.next() * this.count));
    const u = rng.next();
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** `uniform` or `zipf:1.1`, as the flag reads. */
export function popularityName(p: Popularity): string {
  return p.kind === "uniform" ? "uniform" : `zipf:${p.s}`;
}
