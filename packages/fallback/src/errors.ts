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
