/** A backoff option is out of range; the message names the field. */
export class BackoffConfigError extends Error {
  override readonly name = "BackoffConfigError";
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`Backoff.${field} ${detail}`);
  }
}

/** The reason a signal carries when a call's time budget ran out ("200 ms budget exceeded"). */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
  /**
   * @param budgetMs the budget the caller gave, ms (unknown for a deadline given as a signal)
   * @param deadlineMs the absolute deadline on the clock's timeline, if there was one
   */
  constructor(
    readonly budgetMs?: number,
    readonly deadlineMs?: number,
    options?: ErrorOptions,
  ) {
    super(
      budgetMs === undefined ? "deadline signal aborted" : `${Math.round(budgetMs)} ms budget exceeded`,
      options,
    );
  }
}

/** A deadline that cannot be one (NaN, a `Date.now()` value on the `performance.now()` timeline...). */
export class InvalidDeadlineError extends Error {
  override readonly name = "InvalidDeadlineError";
  readonly field = "deadline";
  constructor(
    readonly value: unknown,
    detail: string,
  ) {
    super(`deadline ${typeof value === "number" ? value : typeof value} ${detail}`);
  }
}
