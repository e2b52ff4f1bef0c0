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
  it("keeps window counts per store key across a new key state once the old one is let go", () => {
    const table = new LocalWindows();
    const a = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, true);
    refreshLocalCredit(a, table, 0, T);
    a.admitted = 7;
    refreshLocalCredit(a, table, 1, T + 1);
    table.park(a, T + 1);
    const b = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, true);
    refreshLocalCredit(b, table, 2, T + 2);
    expect(b.credit).toBe(3);
  });
});

const OUTAGE = { since: 0, viewT: T };

describe("fail-static", () => {
  it("counts what the view knew was admitted in the window the outage starts in", () => {
    const table = new LocalWindows();
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const idx = Math.floor(T / 1000);
    k.view = { at: 0, windows: [{ idx, cur: 6, prev: 0, tat: 0 }], reservedOthers: 0, answered: true };
    // 4 free over 4 replicas: floor(4 / 4) = 1, not ceil(10 / 4) = 3
    const kinds = Array.from(
      { length: 3 },
      () => decideDegraded(k, 1, T, 4, false, table, counts, OUTAGE).kind,
    );
    expect(kinds).toEqual(["allow", "deny", "deny"]);
    // the next window is the replica's whole share again
    const next = Array.from(
      { length: 4 },
      () => decideDegraded(k, 1, T + 1000, 4, false, table, counts, OUTAGE).kind,
    );
    expect(next).toEqual(["allow", "allow", "allow", "deny"]);
    // a new outage in the same window counts what the new view knew
    k.view = {
      at: 0,
      windows: [{ idx: idx + 1, cur: 10, prev: 7, tat: 0 }],
      reservedOthers: 0,
      answered: true,
    };
    const later = { since: 5, viewT: T + 1000 };
    expect(decideDegraded(k, 1, T + 1001, 4, false, table, counts, later).kind).toBe("deny");
  });

  it("N replicas starting an outage from one view admit no more than it left free", () => {
    const idx = Math.floor(T / 1000);
    for (let used = 0; used <= 10; used++) {
      let total = used;
      for (let replica = 0; replica < 4; replica++) {
        const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
        k.view = { at: 0, windows: [{ idx, cur: used, prev: 0, tat: 0 }], reservedOthers: 0, answered: true };
        const counts = [0, 0, 0, 0, 0, 0, 0, 0];
        const table = new LocalWindows();
        for (let i = 0; i < 10; i++)
          if (decideDegraded(k, 1, T, 4, false, table, counts, OUTAGE).kind === "allow") total++;
      }
      // shares rounded up passed it by up to N - 1 (0 used: 12 admitted)
      expect(total, `${used} used`).toBeLessThanOrEqual(10);
      expect(total, `${used} used`).toBeGreaterThan(10 - 4);
    }
  });

  it("admits this replica's share of each limit, then denies with Retry-After", () => {
    const table = new LocalWindows();
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const kinds = Array.from(
      { length: 4 },
      () => decideDegraded(k, 1, T, 4, false, table, counts, OUTAGE).kind,
    );
    expect(kinds).toEqual(["allow", "allow", "allow", "deny"]); // ceil(10 / 4)
    expect(counts[DENY_DEGRADED]).toBe(1);
    const d = decideDegraded(k, 1, T + 10, 4, false, table, counts, OUTAGE);
    expect(d.kind === "deny" && d.headers.retryAfter).toBe(1);
  });
  it("admits nothing while the store's window may have ended but not at its earliest time", () => {
    const table = new LocalWindows();
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    // the store's clock known within 20 ms: its window may end 20 ms before `t` says so
    const at = (t: number) => decideDegraded(k, 1, t, 4, false, table, counts, OUTAGE, 20);
    expect(at(T + 900).kind).toBe("allow");
    const d = at(T + 985);
    expect(d.kind).toBe("deny");
    expect(d.kind === "deny" && d.headers.retryAfter).toBe(1);
    // without the spread (the store's clock known exactly) the closing window's units are taken
    const exact = new RateKeyState("k", "rl2:{s:k}:1", FIXED_10, false);
    expect(decideDegraded(exact, 1, T + 985, 4, false, table, counts, OUTAGE).kind).toBe("allow");
    // from the earliest reading of the next window on, its share
    const next = Array.from({ length: 4 }, () => at(T + 1000).kind);
    expect(next).toEqual(["allow", "allow", "allow", "deny"]);
  });

  it("admits a multi-unit cost whole or not at all", () => {
    const table = new LocalWindows();
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    expect(decideDegraded(k, 2, T, 4, false, table, counts, OUTAGE).kind).toBe("allow");
    expect(decideDegraded(k, 2, T, 4, false, table, counts, OUTAGE).kind).toBe("deny");
    expect(decideDegraded(k, 1, T, 4, false, table, counts, OUTAGE).kind).toBe("allow");
  });
  it("fail-open admits everything", () => {
    const k = new RateKeyState("k", "rl2:{s:k}:0", FIXED_10, false);
    const counts = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 20; i++)
      expect(decideDegraded(k, 1, T, 4, true, new LocalWindows(), counts, OUTAGE).kind).toBe("allow");
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
