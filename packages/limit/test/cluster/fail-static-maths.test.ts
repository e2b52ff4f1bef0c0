// Local decisions as plain functions: a local-only key's credit and fail-static shares.
import { describe, expect, it } from "vitest";
import { ConcurrencyKeyState } from "../../src/cluster/concurrency-key.js";
import { ratePolicy } from "../../src/cluster/config.js";
import { DENY_DEGRADED } from "../../src/cluster/decision.js";
import {
  decideDegraded,
  degradedSlotFree,
  LocalWindows,
  refreshLocalCredit,
} from "../../src/cluster/fail-static.js";
import { RateKeyState } from "../../src/cluster/rate-key.js";

const FIXED_10 = ratePolicy({ algorithm: "fixed_window", requestsPerSecond: 10 })!;
const T = 5_000_000; // store time, on a whole second

describe("local-only credit", () => {
  it("takes every free unit until the window boundary, then counts the admits in their window", () => {
    const table = new LocalWindows();
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, true);
    refreshLocalCredit(k, table, 0, T + 100);
    expect(k.credit).toBe(10);
    expect(k.boundary).toBe(T + 1000);
    k.admitted = 10;
    refreshLocalCredit(k, table, 500, T + 500);
    expect(k.unused()).toBe(0); // the window is full
    refreshLocalCredit(k, table, 1000, T + 1000);
    expect(k.credit - k.admitted).toBe(10); // the next window is empty again
  });
  it("keeps window counts per store key across a new key state", () => {
    const table = new LocalWindows();
    const a = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, true);
    refreshLocalCredit(a, table, 0, T);
    a.admitted = 7;
    refreshLocalCredit(a, table, 1, T + 1);
    const b = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, true);
    refreshLocalCredit(b, table, 2, T + 2);
    expect(b.credit).toBe(3);
  });
});

describe("fail-static", () => {
  it("admits this replica's share of each limit, then denies with Retry-After", () => {
    const table = new LocalWindows();
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const kinds = Array.from({ length: 4 }, () => decideDegraded(k, 1, T, 4, false, table, counts).kind);
    expect(kinds).toEqual(["allow", "allow", "allow", "deny"]); // ceil(10 / 4)
    expect(counts[DENY_DEGRADED]).toBe(1);
    const d = decideDegraded(k, 1, T + 10, 4, false, table, counts);
    expect(d.kind === "deny" && d.headers.retryAfter).toBe(1);
  });
  it("admits a multi-unit cost whole or not at all", () => {
    const table = new LocalWindows();
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    expect(decideDegraded(k, 2, T, 4, false, table, counts).kind).toBe("allow");
    expect(decideDegraded(k, 2, T, 4, false, table, counts).kind).toBe("deny");
    expect(decideDegraded(k, 1, T, 4, false, table, counts).kind).toBe("allow");
  });
  it("fail-open admits everything", () => {
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 20; i++)
      expect(decideDegraded(k, 1, T, 4, true, new LocalWindows(), counts).kind).toBe("allow");
  });
  it("a concurrency key keeps its share of the cap, at least one slot", () => {
    const c = new ConcurrencyKeyState("k", "cc2:{s:k}:5", 5, FIXED_10, false);
    c.active = 1;
    expect(degradedSlotFree(c, 4, false)).toBe(true);
    c.active = 2;
    expect(degradedSlotFree(c, 4, false)).toBe(false);
    expect(degradedSlotFree(c, 4, true)).toBe(true);
    c.active = 0;
    expect(degradedSlotFree(c, 100, false)).toBe(true);
  });
});
