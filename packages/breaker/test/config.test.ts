import { describe, expect, it } from "vitest";
import { BreakerConfig, BreakerConfigError, Breakers, MAX_FAILURES_KEPT } from "../src/index.js";

describe("BreakerConfig", () => {
  it("has the documented defaults: 5 failures in 60 s open for 30 s", () => {
    expect(BreakerConfig.deployment()).toEqual({
      failureThreshold: 5,
      windowMs: 60_000,
      openForMs: 30_000,
      minSources: 1,
    });
    expect(BreakerConfig.vendor().minSources).toBe(2);
  });

  it("names the bad field", () => {
    const ok = BreakerConfig.deployment();
    expect(() => new Breakers("deployment", { ...ok, failureThreshold: 0 })).toThrow(/failureThreshold/);
    expect(() => new Breakers("deployment", { ...ok, windowMs: -1 })).toThrow(/windowMs/);
    expect(() => new Breakers("deployment", { ...ok, openForMs: Number.NaN })).toThrow(/openForMs/);
    expect(() => new Breakers("deployment", { ...ok, minSources: 1.5 })).toThrow(/minSources/);
    expect(() => BreakerConfig.validate({ ...ok, minSources: 0 })).toThrow(BreakerConfigError);
  });

  it("rejects a threshold no breaker could reach (only the last 64 failures are kept)", () => {
    const ok = BreakerConfig.deployment();
    expect(BreakerConfig.validate({ ...ok, failureThreshold: MAX_FAILURES_KEPT }).failureThreshold).toBe(64);
    expect(() => BreakerConfig.validate({ ...ok, failureThreshold: MAX_FAILURES_KEPT + 1 })).toThrow(
      /failureThreshold must be an integer from 1 to 64/,
    );
  });
});
