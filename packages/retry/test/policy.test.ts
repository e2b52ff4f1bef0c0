import { describe, expect, it } from "vitest";
import { MAX_RETRIES, RetryPolicy } from "../src/index.js";

describe("RetryPolicy", () => {
  it("none makes no retries", () => {
    expect(RetryPolicy.none().maxRetries).toBe(0);
  });

  it("standard takes retry_config and the standard backoff", () => {
    const p = RetryPolicy.standard({ numRetries: 3, maxDelayS: 10 });
    expect(p.maxRetries).toBe(3);
    expect(p.backoff).toMatchObject({ baseMs: 1000, maxMs: 10_000, jitter: "additive" });
  });

  it("interactive takes retry_config and the interactive backoff", () => {
    const p = RetryPolicy.interactive({ numRetries: 2, maxDelayS: 5 });
    expect(p.maxRetries).toBe(2);
    expect(p.backoff).toMatchObject({ baseMs: 250, maxMs: 5000, jitter: "full" });
  });

  it("caps retries at 10 and reads nonsense as 0", () => {
    expect(RetryPolicy.standard({ numRetries: 50, maxDelayS: 1 }).maxRetries).toBe(MAX_RETRIES);
    expect(RetryPolicy.interactive({ numRetries: -3, maxDelayS: 1 }).maxRetries).toBe(0);
    expect(RetryPolicy.interactive({ numRetries: Number.NaN, maxDelayS: 1 }).maxRetries).toBe(0);
    expect(RetryPolicy.standard({ numRetries: 2.7, maxDelayS: 1 }).maxRetries).toBe(2);
  });
});
