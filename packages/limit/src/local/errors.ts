/** A limiter policy field is out of range; thrown synchronously when the limiter is built. */
export class LocalPolicyError extends RangeError {
  override readonly name = "LocalPolicyError";

  constructor(
    /** The offending field, e.g. `"maxTokens"` or `"windowMs"`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Shape of a multi-tier rejection: which tier blocked and how long until it may admit. */
export interface RateLimitedInfo {
  readonly tier: string;
  /** Milliseconds until the blocking tier may admit; `Infinity` (NEVER) if it never can. */
  readonly retryAfterMs: number;
}

/** A call was refused by a tier of a `MultiRateLimiter`. */
export class RateLimitedError extends Error {
  override readonly name = "RateLimitedError";
  readonly tier: string;
  readonly retryAfterMs: number;

  constructor(tier: string, retryAfterMs: number) {
    const after = Number.isFinite(retryAfterMs) ? `retry after ${retryAfterMs} ms` : "it can never admit";
    super(`rate limited by tier \`${tier}\`: ${after}`);
    this.tier = tier;
    this.retryAfterMs = retryAfterMs;
  }

  /** Turns a `tryAcquire` rejection into an error, for callers that prefer to throw. */
  static from(rejection: RateLimitedInfo): RateLimitedError {
    return new RateLimitedError(rejection.tier, rejection.retryAfterMs);
  }
}
