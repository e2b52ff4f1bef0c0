import { Backoff } from "./backoff.js";

/** The camelCase `retry_config` block of a target's policy (what @resil/policy parses). */
export interface RetryConfig {
  numRetries: number;
  maxDelayS: number;
}

/** However many retries a config asks for, at most this many are made. */
export const MAX_RETRIES = 10;

function clampRetries(n: number): number {
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.floor(n), MAX_RETRIES);
}

/** How many retries to make and how long to wait between them. */
export class RetryPolicy {
  constructor(
    readonly maxRetries: number,
    readonly backoff: Backoff,
  ) {}

  /** One attempt, no retries. */
  static none(): RetryPolicy {
    return new RetryPolicy(0, Backoff.standard(0));
  }

  /** Background profile: min(numRetries, 10) retries, `Backoff.standard(maxDelayS)`. */
  static standard(config: RetryConfig): RetryPolicy {
    return new RetryPolicy(clampRetries(config.numRetries), Backoff.standard(config.maxDelayS));
  }

  /** Interactive profile: min(numRetries, 10) retries, `Backoff.interactive(maxDelayS)`. */
  static interactive(config: RetryConfig): RetryPolicy {
    return new RetryPolicy(clampRetries(config.numRetries), Backoff.interactive(config.maxDelayS));
  }
}
