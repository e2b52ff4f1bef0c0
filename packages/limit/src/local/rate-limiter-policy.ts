import { LocalPolicyError } from "./errors.js";
import { isIntAtLeast } from "./validate.js";

interface Fields {
  maxTokens: number;
  tokensPerPeriod: number;
  refillPeriodMs: number;
  burst: number;
}

/**
 * Token-bucket parameters: `tokensPerPeriod` tokens every `refillPeriodMs`, up to
 * `capacity = maxTokens + burst`. Immutable; the `with*` methods return a new policy.
 * Checked by `validate()` when a `RateLimiter` is built, so builders may pass through odd states.
 */
export class RateLimiterPolicy {
  /** Steady-state ceiling of the bucket. */
  readonly maxTokens: number;
  /** Tokens added every `refillPeriodMs`. */
  readonly tokensPerPeriod: number;
  /** Refill period in ms; `Infinity` (NEVER) makes a bucket that never refills. */
  readonly refillPeriodMs: number;
  /** Extra headroom above `maxTokens` for short spikes. */
  readonly burst: number;

  /** `tokens` per `periodMs`; maxTokens = tokens, burst 0. */
  constructor(tokens: number, periodMs: number) {
    this.maxTokens = tokens;
    this.tokensPerPeriod = tokens;
    this.refillPeriodMs = periodMs;
    this.burst = 0;
    Object.freeze(this);
  }

  /** `n` tokens per second. */
  static perSecond(n: number): RateLimiterPolicy {
    return new RateLimiterPolicy(n, 1000);
  }

  /** Replaces the steady ceiling only (the refill rate is unchanged). */
  withMaxTokens(maxTokens: number): RateLimiterPolicy {
    return RateLimiterPolicy.of({ ...this.fields(), maxTokens });
  }

  /** Replaces (does not add to) the burst headroom. */
  withBurst(burst: number): RateLimiterPolicy {
    return RateLimiterPolicy.of({ ...this.fields(), burst });
  }

  /** Tokens refilled per millisecond. */
  get refillPerMs(): number {
    return this.tokensPerPeriod / this.refillPeriodMs;
  }

  /** Most tokens the bucket holds: maxTokens + burst. */
  get capacity(): number {
    return this.maxTokens + this.burst;
  }

  /** Throws `LocalPolicyError` naming the first bad field (maxTokens, then the refill rate, then burst). */
  validate(): void {
    if (!isIntAtLeast(this.maxTokens, 1)) {
      throw new LocalPolicyError(
        "maxTokens",
        `maxTokens must be >= 1 (an integer), got ${String(this.maxTokens)}`,
      );
    }
    if (!isIntAtLeast(this.tokensPerPeriod, 1)) {
      throw new LocalPolicyError(
        "tokensPerPeriod",
        `refill rate must be > 0: tokensPerPeriod must be an integer >= 1, got ${String(this.tokensPerPeriod)}`,
      );
    }
    if (!(this.refillPeriodMs > 0)) {
      throw new LocalPolicyError(
        "refillPeriodMs",
        `refill rate must be > 0: refillPeriodMs must be a number > 0 (Infinity = never), got ${String(this.refillPeriodMs)}`,
      );
    }
    if (!isIntAtLeast(this.burst, 0)) {
      throw new LocalPolicyError("burst", `burst must be an integer >= 0, got ${String(this.burst)}`);
    }
    if (!Number.isSafeInteger(this.capacity)) {
      throw new LocalPolicyError("burst", `maxTokens + burst must be a safe integer, got ${this.capacity}`);
    }
  }

  private fields(): Fields {
    const { maxTokens, tokensPerPeriod, refillPeriodMs, burst } = this;
    return { maxTokens, tokensPerPeriod, refillPeriodMs, burst };
  }

  // Builds a policy from all four fields without going through the two-argument constructor.
  private static of(fields: Fields): RateLimiterPolicy {
    const p = Object.create(RateLimiterPolicy.prototype) as RateLimiterPolicy;
    Object.assign(p, fields);
    Object.freeze(p);
    return p;
  }
}
