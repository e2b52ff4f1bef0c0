/** A fallback argument is out of range; the message names it. */
export class FallbackConfigError extends Error {
  override readonly name = "FallbackConfigError";
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field} ${detail}`);
  }
}

/** The reason a chain's AbortSignal carries when its deadline passed. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
  constructor(readonly deadlineMs: number) {
    super(`deadline ${deadlineMs} ms passed`);
  }
}
