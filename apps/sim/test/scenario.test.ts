import { LIMITER_DEFAULTS, RATE_DEFAULTS } from "@resil/limit";
import { describe, expect, it } from "vitest";
import { ScenarioError } from "../src/errors.js";
import { tuningOverrides } from "../src/library-defaults.js";
import { parseScenario, windowBound } from "../src/scenario.js";

describe("parseScenario", () => {
  it("fills the default scenario: 4 replicas, 5x a 50 rps limit, 60 s", () => {
    const s = parseScenario({});
    expect(s.replicas).toBe(4);
    expect(s.load).toBe(5);
    expect(s.duration).toBe(60);
    expect(s.limits).toEqual([{ limit: 50, window: "second" }]);
    expect(s.driver).toBe("steps");
  });

  it("takes every limiter default from the library", () => {
    const { limiter } = parseScenario({});
    expect(limiter).toEqual({
      syncIntervalMs: RATE_DEFAULTS.syncIntervalMs,
      localAllowance: RATE_DEFAULTS.localAllowance,
      cacheTtlMs: RATE_DEFAULTS.cacheTtlMs,
      redisTimeoutMs: RATE_DEFAULTS.redisTimeoutMs,
      leaseTtlMs: LIMITER_DEFAULTS.leaseTtlMs,
      heartbeatMs: LIMITER_DEFAULTS.heartbeatMs,
      slowSyncMs: LIMITER_DEFAULTS.slowSyncMs,
      roundTimeoutMs: LIMITER_DEFAULTS.roundTimeoutMs,
      tickMs: LIMITER_DEFAULTS.tickMs,
      maxKeysPerRound: LIMITER_DEFAULTS.maxKeysPerRound,
      onStoreUnavailable: LIMITER_DEFAULTS.onStoreUnavailable,
      lastMile: LIMITER_DEFAULTS.lastMile,
    });
    expect(tuningOverrides(parseScenario({}))).toEqual([]);
    expect(tuningOverrides(parseScenario({ limiter: { cacheTtlMs: 500 } }))).toEqual([
      { option: "cacheTtlMs", value: 500, library: RATE_DEFAULTS.cacheTtlMs },
    ]);
  });

  it.each([
    [{ replicas: 0 }, /^replicas:/],
    [{ limits: [{ limit: -1 }] }, /^limits\[0\]\.limit:/],
    [{ limiter: { syncIntervalMs: 5 } }, /^limiter\.syncIntervalMs:/],
    [{ limiter: { bogus: 1 } }, /^limiter\.bogus: unknown field/],
    [{ faults: [{ type: "outage", from: 5, to: 2 }] }, /^faults\[0\]\.to: must be after from/],
    [{ faults: [{ type: "crash", at: 1, replica: 4 }] }, /^faults\[0\]\.replica: no replica 4/],
    [{ faults: [{ type: "join", at: 100 }] }, /^faults\[0\]\.at: must be before the end/],
    [{ limits: [{ limit: 5 }, { limit: 6 }] }, /^limits\[1\]\.window: duplicate window second/],
  ])("names the bad field of %j", (raw, message) => {
    expect(() => parseScenario(raw)).toThrow(ScenarioError);
    expect(() => parseScenario(raw)).toThrow(message);
  });

  it("lets a joined replica crash later", () => {
    const s = parseScenario({
      replicas: 1,
      faults: [
        { type: "join", at: 1 },
        { type: "crash", at: 2, replica: 1 },
      ],
    });
    expect(s.faults).toHaveLength(2);
  });

  it("bounds a token bucket window by a full bucket plus a window of refill", () => {
    const s = parseScenario({ algorithm: "token", burst: 20, limits: [{ limit: 50 }] });
    expect(windowBound(s, s.limits[0]!)).toBe(70);
    expect(windowBound(parseScenario({}), { limit: 50, window: "second" })).toBe(50);
  });
});
