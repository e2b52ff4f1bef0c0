/** A bad middleware option; `field` names it. */
export class InvalidMiddlewareOptionError extends RangeError {
  override readonly name = "InvalidMiddlewareOptionError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** The request has no client address and no `key` function was given to make a key otherwise. */
export class MissingKeyError extends Error {
  override readonly name = "MissingKeyError";
  constructor() {
    super("no client address for this request: pass a `key` function");
  }
}
