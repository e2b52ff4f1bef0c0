// max_delay_s is range-checked as a 32-bit float, the way the reference reads it.
import { describe, expect, it } from "vitest";
import { parsePolicy, RetryConfigSchema } from "../src/index.js";

describe("retry_config max_delay_s as a 32-bit float", () => {
  it("a value that rounds to f32::MAX (as f32::MAX prints, 3.4028235e38) is finite, not out of range", () => {
    // 3.4028235e38 is a little above f32::MAX as an f64, but converting it to f32 (round to
    // nearest) gives f32::MAX: finite, so the reference keeps the block.
    const { policy, warnings } = parsePolicy({ retry_config: { num_retries: 1, max_delay_s: 3.4028235e38 } });
    expect(warnings).toEqual([]);
    expect(policy.retryConfig).toEqual({ numRetries: 1, maxDelayS: 3.4028235e38 });
    expect(RetryConfigSchema.safeParse({ num_retries: 1, max_delay_s: 3.4028235e38 }).success).toBe(true);
  });

  it("a value that overflows f32 when rounded is still out of range", () => {
    // f32::MAX + half an ulp (2^103) rounds to infinity.
    for (const d of [3.4028235677973366e38, 3.5e38]) {
      expect(parsePolicy({ retry_config: { num_retries: 1, max_delay_s: d } }).warnings).toEqual([
        "retry_config ignored: max_delay_s out of range",
      ]);
    }
  });
});
