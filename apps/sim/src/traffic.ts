import { limitRatePerMs, type Scenario } from "./scenario.js";

/**
 * Offered traffic over time: a mean rate (load x the tightest limit) shaped by a multiplier whose
 * mean over a period is 1, split across the live replicas (evenly, or with a skewed share on one).
 */
export class Traffic {
  /** Mean arrivals per ms (requests, not cost units). */
  readonly meanArrivalsPerMs: number;
  private readonly shape: Scenario["traffic"]["shape"];
  private readonly periodMs: number;
  private readonly duty: number;
  private readonly trough: number;
  readonly skew: number | undefined;

  constructor(s: Scenario) {
    const totalWeight = s.costs.reduce((a, c) => a + c.weight, 0);
    const meanCost = s.costs.reduce((a, c) => a + c.cost * c.weight, 0) / totalWeight;
    this.meanArrivalsPerMs = (s.load * limitRatePerMs(s)) / meanCost;
    this.shape = s.traffic.shape;
    this.duty = s.traffic.duty;
    this.trough = s.traffic.trough;
    const defaultPeriodS = this.shape === "diurnal" ? s.duration : 10;
    this.periodMs = (s.traffic.period ?? defaultPeriodS) * 1000;
    this.skew = s.traffic.skew ?? (this.shape === "skewed" ? 0.8 : undefined);
  }

  /** The shape's multiplier at `tMs` into the run (mean 1 over a period). */
  multiplier(tMs: number): number {
    switch (this.shape) {
      case "bursty":
        return tMs % this.periodMs < this.duty * this.periodMs ? 1 / this.duty : 0;
      case "diurnal": {
        // Trough at the start and the end of the period, peak in the middle; the mean stays 1.
        const wave = 1 - Math.cos((2 * Math.PI * tMs) / this.periodMs);
        return this.trough + (1 - this.trough) * wave;
      }
      default:
        return 1;
    }
  }

  /** Mean arrivals in the 1 ms step starting at `tMs`, all replicas together. */
  arrivalsPerMs(tMs: number): number {
    return this.meanArrivalsPerMs * this.multiplier(tMs);
  }

  /**
   * Each live replica's share of the traffic (sums to 1). The skewed share goes to the first live
   * replica: when it dies, the balancer's favourite becomes the next one.
   */
  shares(live: number): number[] {
    if (live <= 0) return [];
    if (this.skew === undefined || live === 1) return new Array<number>(live).fill(1 / live);
    const rest = (1 - this.skew) / (live - 1);
    return Array.from({ length: live }, (_, i) => (i === 0 ? this.skew! : rest));
  }
}
