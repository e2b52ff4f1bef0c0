import type { Clock } from "./clock.js";
import { InvalidDeadlineError } from "./errors.js";

/**
 * When a call must be done: a budget in ms from now (`{ budgetMs: 200 }`), an `AbortSignal` that
 * aborts when time is up (`AbortSignal.timeout(200)`), or an absolute time on the clock's timeline
 * (`deadlineIn(200)`). `undefined` is no deadline.
 */
export type Deadline = number | { readonly budgetMs: number } | AbortSignal;

/**
 * An absolute deadline further ahead than this (about 11.6 days) is on another timeline: a
 * `Date.now()` reading is about 1.7e12 where `performance.now()` counts from process start.
 */
export const MAX_DEADLINE_AHEAD_MS = 1e9;

/** A deadline read at the start of a call. */
export interface ResolvedDeadline {
  /** Absolute time on the clock's timeline; undefined for none or for a signal. */
  atMs: number | undefined;
  /** The budget the caller gave (what messages speak of); undefined for none or for a signal. */
  budgetMs: number | undefined;
  /** The caller's deadline signal, if that is what was given. */
  signal: AbortSignal | undefined;
}

const NONE: ResolvedDeadline = Object.freeze({ atMs: undefined, budgetMs: undefined, signal: undefined });

/** Reads `deadline` against `clock` now; throws `InvalidDeadlineError` for a value no deadline can be. */
export function resolveDeadline(deadline: Deadline | undefined, clock: Pick<Clock, "now">): ResolvedDeadline {
  if (deadline === undefined) return NONE;
  if (typeof deadline === "number") {
    if (!Number.isFinite(deadline)) {
      throw new InvalidDeadlineError(
        deadline,
        "must be a finite time on the clock's timeline (undefined: none)",
      );
    }
    const now = clock.now();
    if (deadline - now > MAX_DEADLINE_AHEAD_MS) {
      throw new InvalidDeadlineError(
        deadline,
        `is ${Math.round(deadline - now)} ms ahead of the clock (performance.now()): a Date.now() value? ` +
          "Pass { budgetMs }, deadlineIn(ms) or an AbortSignal",
      );
    }
    return { atMs: deadline, budgetMs: Math.max(0, deadline - now), signal: undefined };
  }
  if (typeof AbortSignal !== "undefined" && deadline instanceof AbortSignal) {
    return { atMs: undefined, budgetMs: undefined, signal: deadline };
  }
  const budget = (deadline as { budgetMs?: unknown } | null)?.budgetMs;
  if (typeof budget !== "number" || Number.isNaN(budget) || budget < 0) {
    throw new InvalidDeadlineError(deadline, "must be { budgetMs: ms >= 0 }, an AbortSignal or a clock time");
  }
  if (budget === Number.POSITIVE_INFINITY) return NONE;
  return { atMs: clock.now() + budget, budgetMs: budget, signal: undefined };
}
