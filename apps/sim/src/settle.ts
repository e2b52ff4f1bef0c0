import { SeededRandom } from "@resil/limit/testing";
import { ArgsError } from "./errors.js";
import type { Scenario } from "./scenario.js";

/**
 * Reserve then settle in the simulation (`--settle 0.5..2`): a request is admitted on its cost (the
 * estimate); after `afterMs` its actual cost, estimate x a uniform factor in [min, max] rounded, is
 * settled with the limiter (`Limiter.settle`).
 */
export class SettleModel {
  private readonly rng: SeededRandom;

  constructor(
    readonly spec: NonNullable<Scenario["settle"]>,
    seed: number,
  ) {
    // its own stream: a run with settle offers the same arrivals as one without
    this.rng = new SeededRandom(seed ^ 0x2545f491);
  }

  /** actual − estimate for a request of cost `estimate`. */
  delta(estimate: number): number {
    const f = this.spec.min + this.rng.next() * (this.spec.max - this.spec.min);
    return Math.max(0, Math.round(estimate * f)) - estimate;
  }
}

/** `0.5..2` or `0.5..2@300` (settled 300 ms after admission). */
export function parseSettle(raw: string): { min: number; max: number; afterMs?: number } {
  const m = /^\s*([0-9.]+)\.\.([0-9.]+)(?:@([0-9.]+))?\s*$/.exec(raw);
  const bad = () => new ArgsError(`--settle: expected LO..HI or LO..HI@MS (e.g. 0.5..2@100), got "${raw}"`);
  if (!m) throw bad();
  const [min, max] = [Number(m[1]), Number(m[2])];
  if (!(Number.isFinite(min) && Number.isFinite(max)) || min > max) throw bad();
  return m[3] === undefined ? { min, max } : { min, max, afterMs: Number(m[3]) };
}
