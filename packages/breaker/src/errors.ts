/** A breaker option is out of range; the message names the field. */
export class BreakerConfigError extends Error {
  override readonly name = "BreakerConfigError";
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`BreakerConfig.${field} ${detail}`);
  }
}
