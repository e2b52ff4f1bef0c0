import { describe, expect, it } from "vitest";
import {
  BreakerConfig,
  Breakers,
  MAX_FAILURES_KEPT,
  PROBE_RETRY_MS,
  type TransitionEvent,
} from "../src/index.js";
import { ManualClock } from "./helpers.js";

const S = 1000;

function setup(config: BreakerConfig = BreakerConfig.deployment()) {
  const clock = new ManualClock(0);
  const events: TransitionEvent[] = [];
  const b = new Breakers("deployment", config, { clock, onTransition: (e) => events.push(e) });
  return { clock, b, events };
}

describe("Breakers.check", () => {
  it("allows an unknown key without making an entry", () => {
    const { b } = setup();
    expect(b.check("k")).toEqual({ allowed: true });
    expect(b.size).toBe(0);
  });

  it("refuses other callers for 1 s while a probe runs", () => {
    const { clock, b } = setup();
    b.openFor("k", 5 * S);
    clock.advance(5 * S);
    expect(b.check("k").allowed).toBe(true);
    clock.advance(29 * S);
    expect(b.check("k")).toEqual({ allowed: false, tier: "deployment", retryInMs: PROBE_RETRY_MS });
  });

  it("reopens on a failed probe without counting the failure", () => {
    const { clock, b } = setup();
    b.openFor("k", S);
    clock.advance(S);
    b.check("k");
    b.recordFailure("k", "k");
    expect(b.state("k")).toEqual({ value: "open", until: clock.now() + 30 * S });
    clock.advance(30 * S);
    b.check("k");
    b.recordSuccess("k");
    // the failed probe left no failure behind: 4 more do not open
    for (let i = 0; i < 4; i++) b.recordFailure("k", "k");
    expect(b.state("k").value).toBe("closed");
  });
});

describe("Breakers.state", () => {
  it("reads an expired open as half-open without starting a probe", () => {
    const { clock, b, events } = setup();
    b.openFor("k", S);
    clock.advance(S);
    expect(b.state("k")).toEqual({ value: "halfOpen" });
    expect(b.state("k")).toEqual({ value: "halfOpen" });
    expect(events.map((e) => e.to)).toEqual(["open"]);
    expect(b.check("k").allowed).toBe(true);
    expect(b.state("k")).toEqual({ value: "halfOpen", probeStartedAt: S });
  });
});

describe("Breakers.recordFailure", () => {
  it("keeps a failure exactly one window old", () => {
    const { clock, b } = setup();
    for (let i = 0; i < 4; i++) b.recordFailure("k", "k");
    clock.advance(60 * S);
    b.recordFailure("k", "k");
    expect(b.state("k").value).toBe("open");
  });

  it("drops a failure one ms older than the window", () => {
    const { clock, b } = setup();
    b.recordFailure("k", "k");
    clock.advance(1);
    for (let i = 0; i < 3; i++) b.recordFailure("k", "k");
    clock.advance(60 * S);
    b.recordFailure("k", "k");
    expect(b.state("k").value).toBe("closed");
  });

  it("needs minSources distinct sources", () => {
    const { b } = setup(BreakerConfig.vendor());
    for (let i = 0; i < 20; i++) b.recordFailure("p", "a");
    expect(b.state("p").value).toBe("closed");
    b.recordFailure("p", "b");
    expect(b.state("p").value).toBe("open");
  });

  it(`opens at the largest threshold, ${MAX_FAILURES_KEPT} (no more failures are kept)`, () => {
    const { b: atCap } = setup({ ...BreakerConfig.deployment(), failureThreshold: MAX_FAILURES_KEPT });
    for (let i = 0; i < MAX_FAILURES_KEPT; i++) atCap.recordFailure("k", "k");
    expect(atCap.state("k").value).toBe("open");
  });

  it("appends to an open entry without changing it", () => {
    const { b, events } = setup();
    b.openFor("k", 10 * S);
    for (let i = 0; i < 10; i++) b.recordFailure("k", "k");
    expect(b.state("k")).toEqual({ value: "open", until: 10 * S });
    expect(events).toHaveLength(1);
  });
});

describe("Breakers.openFor", () => {
  it("keeps a longer open and replaces a shorter one", () => {
    const { b } = setup();
    b.openFor("k", 20 * S);
    b.openFor("k", 5 * S);
    expect(b.state("k")).toEqual({ value: "open", until: 20 * S });
    b.openFor("k", 40 * S);
    expect(b.state("k")).toEqual({ value: "open", until: 40 * S });
  });

  it("reopens a probing breaker", () => {
    const { clock, b, events } = setup();
    b.openFor("k", S);
    clock.advance(S);
    b.check("k");
    b.openFor("k", 3 * S);
    expect(b.state("k")).toEqual({ value: "open", until: 4 * S });
    expect(events.map((e) => `${e.from}>${e.to}:${e.cause}`)).toEqual([
      "closed>open:openFor",
      "open>halfOpen:probe",
      "halfOpen>open:openFor",
    ]);
  });
});

describe("Breakers: bounded memory (extension)", () => {
  it("evicts closed entries with no failure in the window, keeps the rest", () => {
    const { clock, b } = setup();
    for (let i = 0; i < 10_000; i++) b.recordFailure(`k${i}`, `k${i}`);
    b.openFor("open-one", 10 * 60 * S);
    expect(b.size).toBe(10_001);
    clock.advance(30 * S);
    b.recordFailure("recent", "recent");
    clock.advance(31 * S);
    b.check("anything");
    expect(b.size).toBe(2);
    expect(b.state("open-one").value).toBe("open");
    for (let i = 0; i < 4; i++) b.recordFailure("recent", "recent");
    expect(b.state("recent").value).toBe("open");
  });

  it("rejects a sweep interval that would sweep on every call; Infinity never sweeps", () => {
    for (const bad of [-1, Number.NaN]) {
      expect(() => new Breakers("deployment", undefined, { sweepIntervalMs: bad })).toThrow(
        /sweepIntervalMs/,
      );
    }
    const clock = new ManualClock();
    const b = new Breakers("deployment", undefined, { clock, sweepIntervalMs: Number.POSITIVE_INFINITY });
    b.recordFailure("k", "k");
    clock.advance(10 * 60 * S);
    b.check("other");
    expect(b.size).toBe(1);
  });

  it("drops an entry on success", () => {
    const { b } = setup();
    b.recordFailure("k", "k");
    b.recordSuccess("k");
    expect(b.size).toBe(0);
  });

  it("ignores a throwing transition hook", () => {
    const b = new Breakers("vendor", undefined, {
      clock: new ManualClock(),
      onTransition: () => {
        throw new Error("logger broke");
      },
    });
    expect(() => b.openFor("k", S)).not.toThrow();
    expect(b.state("k").value).toBe("open");
  });
});
