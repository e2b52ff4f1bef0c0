// Bad input gets a clear error naming the field; a broken store never crashes or hangs a check.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import {
  InvalidCostError,
  InvalidOptionError,
  InvalidPolicyError,
  LimiterClosedError,
} from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10, localAllowance: 0.8 } as const;

function limiterOn(clock = new ManualClock()) {
  const store = new MemoryStore(clock);
  return { clock, store, limiter: new Limiter({ service: "t", podId: "p" }, store, clock) };
}

describe("bad input", () => {
  it("rejects an empty subject in setPolicy; check on it is unlimited", async () => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("", FIXED_10)).toThrow(InvalidPolicyError);
    expect(await limiter.check("")).toEqual({ kind: "unlimited" });
  });

  it.each([
    ["requestsPerSecond", -1],
    ["requestsPerMinute", Number.NaN],
    ["requestsPerHour", Number.POSITIVE_INFINITY],
    ["burstSize", -3],
  ])("rejects %s = %s naming the field", (field, value) => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("k", { requestsPerSecond: 5, [field]: value })).toThrow(
      expect.objectContaining({ name: "InvalidPolicyError", field }),
    );
    expect(limiter.hasPolicy("k")).toBe(false);
  });

  it("rejects a negative or NaN maxConcurrent and an unknown algorithm", () => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("k", null, -1)).toThrow(/maxConcurrent/);
    expect(() => limiter.setPolicy("k", null, Number.NaN)).toThrow(/maxConcurrent/);
    expect(() =>
      limiter.setPolicy("k", { algorithm: "leaky" as "fixed_window", requestsPerSecond: 1 }),
    ).toThrow(/algorithm/);
  });

  it("clamps tuning out of range instead of failing", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", {
      requestsPerSecond: 5,
      syncIntervalMs: -5,
      cacheTtlMs: Number.NaN,
      localAllowance: -1,
    });
    expect(limiter.hasPolicy("k")).toBe(true);
    expect((await limiter.check("k")).kind).toBe("allow");
  });

  it("syncPolicies changes nothing when one entry is bad", () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("keep", FIXED_10);
    expect(() =>
      limiter.syncPolicies([
        { subject: "new", rateLimits: FIXED_10 },
        { subject: "bad", rateLimits: { requestsPerSecond: -1 } },
      ]),
    ).toThrow(InvalidPolicyError);
    expect(limiter.hasPolicy("keep")).toBe(true);
    expect(limiter.hasPolicy("new")).toBe(false);
  });

  it.each([1.5, -1, Number.NaN, Number.POSITIVE_INFINITY])("cost %s is a RangeError", async (cost) => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10);
    expect(() => limiter.tryCheck("k", cost)).toThrow(InvalidCostError);
    await expect(limiter.check("k", cost)).rejects.toBeInstanceOf(RangeError);
    await expect(limiter.check("unknown", cost)).rejects.toBeInstanceOf(InvalidCostError);
  });

  it("a cost above the smallest capacity is denied at once with a reason, not a wait", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", { ...FIXED_10, requestsPerMinute: 50 });
    const d = limiter.tryCheck("k", 11);
    expect(d).toMatchObject({ kind: "deny", reason: "costExceedsLimit" });
    if (d?.kind === "deny") expect(d.headers.retryAfter).toBeUndefined();
  });

  it("rejects bad options naming the field", () => {
    expect(() => new Limiter({ heartbeatMs: 0 })).toThrow(InvalidOptionError);
    expect(() => new Limiter({ service: "" })).toThrow(/service/);
    expect(() => new Limiter({ onStoreUnavailable: "panic" as "allow" })).toThrow(/onStoreUnavailable/);
  });

  it("rejects a pod id that would clash with the store's own hash fields", () => {
    // releasing pod "w1" would delete window 1 of every rate key; pod "L:x" would take pod x's lease,
    // "Q:x" its turn, "q" the ticket counter
    for (const podId of ["w1", "w12", "L:x", "Q:x", "q"])
      expect(() => new Limiter({ podId })).toThrow(/podId/);
    for (const podId of ["w", "w1a", "web-1", "xL:", "qq", "Q"])
      expect(new Limiter({ podId }).podId).toBe(podId);
  });

  it("check before start works (kick-driven syncs only); after shutdown it rejects", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10);
    expect((await limiter.check("k")).kind).toBe("allow");
    await limiter.shutdown();
    await expect(limiter.check("k")).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.check("unknown")).rejects.toBeInstanceOf(LimiterClosedError);
    expect(() => limiter.tryCheck("k")).toThrow(LimiterClosedError);
    await expect(limiter.acquire("k")).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.start()).rejects.toBeInstanceOf(LimiterClosedError);
    await limiter.shutdown(); // idempotent
  });

  it("a store that throws, hangs or answers malformed replies never crashes or hangs a check", async () => {
    const clock = new ManualClock();
    const throwing: Store = {
      round() {
        throw new Error("boom");
      },
    };
    const hanging: Store = { round: () => new Promise<RoundReply>(() => {}) };
    const malformed: Store = { round: async (_r: RoundRequest) => ({ rates: [], concurrency: [] }) };
    for (const store of [throwing, hanging, malformed]) {
      const limiter = new Limiter({ podId: "p", roundTimeoutMs: 50 }, store, clock);
      limiter.setPolicy("k", FIXED_10);
      const pending = limiter.check("k");
      await clock.advanceAsync(100);
      const d = await pending;
      expect(["allow", "deny"]).toContain(d.kind);
      await clock.advanceAsync(100);
      expect(limiter.syncFailures()).toBeGreaterThan(0);
    }
  });
});

describe("bad input: algorithm names", () => {
  it("an algorithm name from Object.prototype is rejected, not sent to the store", () => {
    const l = new Limiter({ podId: "p" }, new MemoryStore(new ManualClock()), new ManualClock());
    for (const algorithm of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(() => l.setPolicy("k", { algorithm: algorithm as never, requestsPerSecond: 5 })).toThrow(
        InvalidPolicyError,
      );
    }
    expect(l.hasPolicy("k")).toBe(false);
  });
});
