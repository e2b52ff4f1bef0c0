import type { Decision } from "./decision.js";
import { InvalidOptionError } from "./errors.js";

/** A Pacer's interface, options and errors (pacer.ts). */

/** What a Pacer needs of a Limiter. */
export interface PacedLimiter {
  tryCheck(subject: string, cost?: number): Decision | undefined;
  check(subject: string, cost?: number): Promise<Decision>;
  /** When present, the check of a one-unit waiter within its share, which may take units kept for larger ones. */
  checkShare?(subject: string, cost?: number): Promise<Decision>;
  /** When present, units admitted for a waiter that left meanwhile are given back. */
  settle?(subject: string, delta: number, takenAt: number): number;
  storeTime?(): number;
}

export interface PacerOptions {
  /** How often the waiter at the head of a queue asks again while denied. Default 5 ms. */
  pollMs?: number;
  /** The longest any wait may last, when a call names none. Default 30,000 ms. */
  maxWaitMs?: number;
}

export interface WaitOptions {
  /** Units this call takes (default 1). */
  cost?: number;
  /** Aborts the wait: it rejects with the signal's reason and leaves the queue. */
  signal?: AbortSignal;
  /** Rejects with WaitTimeoutError when no capacity came within this many ms. */
  maxWaitMs?: number;
}

/** No capacity came within the wait's `maxWaitMs`. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
  constructor(readonly maxWaitMs: number) {
    super(`no capacity within ${maxWaitMs} ms`);
  }
}

/** The cost can never be admitted: it exceeds the subject's limit itself. */
export class CostExceedsLimitError extends RangeError {
  override readonly name = "CostExceedsLimitError";
  constructor(
    readonly subject: string,
    readonly cost: number,
  ) {
    super(`${subject}: a cost of ${cost} exceeds the limit itself and can never be admitted`);
  }
}

/** The Pacer's defaults: `pollMs` and `maxWaitMs`. */
export const PACER_DEFAULTS: Readonly<Required<PacerOptions>> = Object.freeze({
  pollMs: 5,
  maxWaitMs: 30_000,
});
const MAX_TIMER_MS = 2_147_483_647;

export function positive(field: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v <= 0)
    throw new InvalidOptionError(field, `must be a positive finite number, got ${v}`);
  return Math.min(v, MAX_TIMER_MS);
}
