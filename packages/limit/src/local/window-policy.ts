import { LocalPolicyError } from "./errors.js";
import { isIntAtLeast } from "./validate.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * At most `limit` units per fixed window of `windowMs`; the quota resets at once when the window
 * ends. Checked by `validate()` when a `WindowedRateLimiter` is built.
 */
export class WindowPolicy {
  constructor(
    /** Units admitted per window (an integer >= 1). */
    readonly limit: number,
    /** Window length in ms (> 0); `Infinity` (NEVER) makes a one-off quota that never resets. */
    readonly windowMs: number,
  ) {
    Object.freeze(this);
  }

  /** `limit` units per `hours` hours. */
  static perHours(limit: number, hours: number): WindowPolicy {
    return new WindowPolicy(limit, hours * HOUR_MS);
  }

  /** `limit` units per `days` days. */
  static perDays(limit: number, days: number): WindowPolicy {
    return new WindowPolicy(limit, days * DAY_MS);
  }

  /** Throws `LocalPolicyError` naming the first bad field (limit, then windowMs). */
  validate(): void {
    if (!isIntAtLeast(this.limit, 1)) {
      throw new LocalPolicyError("limit", `limit must be >= 1 (an integer), got ${String(this.limit)}`);
    }
    if (!(this.windowMs > 0)) {
      throw new LocalPolicyError(
        "windowMs",
        `windowMs must be a number > 0 (Infinity = never resets), got ${String(this.windowMs)}`,
      );
    }
  }
}
