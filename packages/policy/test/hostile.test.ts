import { afterEach, describe, expect, it } from "vitest";
import { MAX_WARNINGS, parsePolicy } from "../src/index.js";

describe("parsePolicy on hostile records", () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).enabled;
    delete (Object.prototype as Record<string, unknown>).num_retries;
  });

  it("caps warnings at MAX_WARNINGS plus one line counting the rest", () => {
    const { policy, warnings } = parsePolicy({ fallback_models: new Array(1_000_000).fill(0) });
    expect(policy.fallbackModels).toEqual([]);
    expect(warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(warnings[MAX_WARNINGS]).toBe(`${1_000_000 - MAX_WARNINGS} more warnings`);
  });

  it("reads own properties only: a polluted Object.prototype changes nothing", () => {
    (Object.prototype as Record<string, unknown>).enabled = false;
    (Object.prototype as Record<string, unknown>).num_retries = 7;
    const { policy, warnings } = parsePolicy({
      rate_limits: { requests_per_minute: 5 },
      retry_config: { max_delay_s: 1 },
    });
    expect(policy.rateLimits?.enabled).toBe(true);
    expect(policy.retryConfig).toBeUndefined();
    expect(warnings).toEqual(["retry_config ignored: num_retries: missing field"]);
  });
});
