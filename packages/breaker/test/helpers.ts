import type { BreakerVerdict } from "../src/index.js";

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** The breaker part of classify's verdicts for a 401, a 503, a 400 and a 429 with a hint. */
export const v401: BreakerVerdict = { breaker: { kind: "deployment" } };
export const v503: BreakerVerdict = { breaker: { kind: "vendor" } };
export const v400: BreakerVerdict = { breaker: { kind: "ignore" } };
export const v429 = (ms: number): BreakerVerdict => ({ breaker: { kind: "openFor", ms } });
