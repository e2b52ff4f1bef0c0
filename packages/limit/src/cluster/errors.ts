/** A policy or option field is out of range; `field` names it. */
export class InvalidPolicyError extends RangeError {
  override readonly name = "InvalidPolicyError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** `cost` must be a non-negative integer (units of the limit). */
export class InvalidCostError extends RangeError {
  override readonly name = "InvalidCostError";
  constructor(readonly cost: number) {
    super(`cost must be a non-negative integer, got ${String(cost)}`);
  }
}

/** The Limiter was shut down: it makes no more decisions and talks to no store. */
export class LimiterClosedError extends Error {
  override readonly name = "LimiterClosedError";
  constructor(operation: string) {
    super(`Limiter.${operation}: the limiter was shut down`);
  }
}

/** A store round trip that took longer than `roundTimeoutMs`. */
export class StoreTimeoutError extends Error {
  override readonly name = "StoreTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`store round trip exceeded ${timeoutMs} ms`);
  }
}

/** A LimiterOptions field is out of range; `field` names it. */
export class InvalidOptionError extends RangeError {
  override readonly name = "InvalidOptionError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`LimiterOptions.${field}: ${message}`);
  }
}
