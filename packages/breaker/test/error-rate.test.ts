import { describe, expect, it } from "vitest";
import { BreakerConfig, BreakerConfigError, Breakers, TwoTier } from "../src/index.js";
import { ManualClock, v503 } from "./helpers.js";

function rateBreaker(overrides: Partial<BreakerConfig> = {}) {
  const clock = new ManualClock(0);
  const b = new Breakers("deployment", BreakerConfig.errorRate(overrides), { clock });
  return { clock, b };
}

describe("error-rate mode", () => {
  it("opens at 50 % failures once the minimum volume of 20 calls is reached", () => {
    const { b } = rateBreaker();
    for (let i = 0; i < 9; i++) {
      b.recordSuccess("k");
      b.recordFailure("k", "k");
    }
    // 18 calls, 50 %: below the volume
    expect(b.state("k").value).toBe("closed");
    b.recordSuccess("k");
    b.recordFailure("k", "k");
    expect(b.state("k")).toEqual({ value: "open", until: 30_000 });
  });

  it("does not open at 5 failures in 10,000 calls, where count mode would", () => {
    const { b } = rateBreaker();
    const counted = new Breakers("deployment", BreakerConfig.deployment(), { clock: new ManualClock(0) });
    for (let i = 0; i < 10_000; i++) {
      const fail = i % 2000 === 0;
      if (fail) {
        b.recordFailure("k", "k");
        counted.recordFailure("k", "k");
      } else {
        b.recordSuccess("k");
      }
    }
    expect(b.state("k").value).toBe("closed");
    expect(counted.state("k").value).toBe("open");
  });

  it("forgets calls older than the rolling window", () => {
    const { clock, b } = rateBreaker();
    for (let i = 0; i < 100; i++) b.recordSuccess("k");
    clock.advance(10_000);
    // the 100 successes have rolled out: 20 failures alone are 100 %
    for (let i = 0; i < 20; i++) b.recordFailure("k", "k");
    expect(b.state("k").value).toBe("open");
  });

  it("still needs distinct sources for a provider tier", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock, vendor: BreakerConfig.errorRate({ minSources: 2 }) });
    for (let i = 0; i < 40; i++) tt.recordFailure("a", "p", v503);
    expect(tt.vendor.state("p").value).toBe("closed");
    tt.recordFailure("b", "p", v503);
    expect(tt.vendor.state("p").value).toBe("open");
  });

  it("closes on a successful probe and starts counting afresh", () => {
    const { clock, b } = rateBreaker();
    for (let i = 0; i < 20; i++) b.recordFailure("k", "k");
    clock.advance(30_000);
    expect(b.check("k")).toEqual({ allowed: true, probes: ["deployment"] });
    b.recordSuccess("k");
    expect(b.state("k").value).toBe("closed");
    for (let i = 0; i < 5; i++) b.recordFailure("k", "k");
    expect(b.state("k").value).toBe("closed");
  });

  it("evicts a key whose calls all left the window", () => {
    const { clock, b } = rateBreaker();
    for (let i = 0; i < 1000; i++) b.recordSuccess(`k${i}`);
    expect(b.size).toBe(1000);
    clock.advance(10_001);
    b.check("x");
    expect(b.size).toBe(0);
  });

  it("names a bad rate field", () => {
    expect(() => BreakerConfig.validate(BreakerConfig.errorRate({ failureRateThreshold: 0 }))).toThrow(
      /failureRateThreshold/,
    );
    expect(() => BreakerConfig.validate(BreakerConfig.errorRate({ minimumVolume: 0.5 }))).toThrow(
      BreakerConfigError,
    );
    expect(() => BreakerConfig.validate(BreakerConfig.errorRate({ buckets: 0 }))).toThrow(/buckets/);
  });
});

describe("metrics", () => {
  it("counts transitions, refusals and probes per tier", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock });
    tt.deployment.openFor("t", 1000);
    tt.check("t", "p");
    clock.advance(1000);
    const probe = tt.check("t", "p");
    tt.release("t", "p", probe);
    const value = (name: string, labels: Record<string, string>) =>
      tt
        .metrics()
        .samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
    expect(
      value("resil_breaker_transitions_total", { tier: "deployment", to: "open", cause: "openFor" }),
    ).toBe(1);
    expect(value("resil_breaker_refusals_total", { tier: "deployment" })).toBe(1);
    expect(value("resil_breaker_probes_total", { tier: "deployment", outcome: "granted" })).toBe(1);
    expect(value("resil_breaker_probes_total", { tier: "deployment", outcome: "released" })).toBe(1);
    expect(value("resil_breaker_open", { tier: "deployment" })).toBe(1);
    expect(value("resil_breaker_open", { tier: "vendor" })).toBe(0);
  });
});
