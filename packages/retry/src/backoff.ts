import { BackoffConfigError } from "./errors.js";

/** none: the capped delay; full: delay x U[0,1); additive: min(delay + delay x U, max). */
export type Jitter = "none" | "full" | "additive";

export interface BackoffOptions {
  /** Delay before the first retry, ms. */
  baseMs: number;
  /** Growth per retry. */
  factor: number;
  /** Cap on the delay before jitter, ms (additive jitter never exceeds it either). */
  maxMs: number;
  jitter: Jitter;
}

/** Hints and `max_delay_s` are capped at one hour, as classify caps delay hints. */
const MAX_SECONDS = 3600;
/** The exponent stops growing here so the delay never overflows to Infinity. */
const MAX_EXPONENT = 30;

/** Seconds to ms: finite and > 0 -> min(s, 3600) rounded to whole microseconds; anything else 0. */
export function secondsToMs(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.round(Math.min(seconds, MAX_SECONDS) * 1e6) / 1e3;
}

/** Exponential backoff with a cap and jitter. */
export class Backoff {
  readonly baseMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly jitter: Jitter;

  constructor(options: BackoffOptions) {
    const { baseMs, factor, maxMs, jitter } = options;
    if (!Number.isFinite(baseMs) || baseMs < 0)
      throw new BackoffConfigError("baseMs", "must be finite and >= 0");
    if (!Number.isFinite(factor) || factor < 1)
      throw new BackoffConfigError("factor", "must be finite and >= 1");
    if (!Number.isFinite(maxMs) || maxMs < 0)
      throw new BackoffConfigError("maxMs", "must be finite and >= 0");
    if (jitter !== "none" && jitter !== "full" && jitter !== "additive") {
      throw new BackoffConfigError("jitter", 'must be "none", "full" or "additive"');
    }
    this.baseMs = baseMs;
    this.factor = factor;
    this.maxMs = maxMs;
    this.jitter = jitter;
  }

  /** Background work: base 1 s, factor 2, max `maxDelayS`, additive jitter. */
  static standard(maxDelayS: number): Backoff {
    return new Backoff({ baseMs: 1000, factor: 2, maxMs: secondsToMs(maxDelayS), jitter: "additive" });
  }

  /** A user is waiting: base min(250 ms, max), factor 2, max `maxDelayS`, full jitter. */
  static interactive(maxDelayS: number): Backoff {
    const maxMs = secondsToMs(maxDelayS);
    return new Backoff({ baseMs: Math.min(250, maxMs), factor: 2, maxMs, jitter: "full" });
  }

  /** The wait before retry number `retry` (0-based), in ms; `random` returns U[0,1). */
  delay(retry: number, random: () => number = Math.random): number {
    const n = Number.isFinite(retry) ? Math.max(0, Math.floor(retry)) : MAX_EXPONENT;
    const raw = this.baseMs * this.factor ** Math.min(n, MAX_EXPONENT);
    const capped = Math.min(raw, this.maxMs);
    let delay = capped;
    if (this.jitter === "full") delay = capped * random();
    else if (this.jitter === "additive") delay = Math.min(capped + capped * random(), this.maxMs);
    return Math.max(0, delay);
  }
}
