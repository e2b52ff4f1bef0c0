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

/** The reason a retry's AbortSignal carries when its deadline passed. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
  constructor(readonly deadlineMs: number) {
    super(`deadline ${deadlineMs} ms passed`);
  }
}
