import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AlgorithmCode, WindowSpec } from "../../src/index.js";
import {
  apply,
  applyPast,
  COUNT_MAX,
  capacity,
  emptyWindow,
  free,
  keepSeen,
  resetMs,
  retryAfterMs,
  roll,
  usage,
  windowIndex,
} from "../../src/store-kit.js";

const FIXED: AlgorithmCode = 0;
const SLIDING: AlgorithmCode = 1;
const BUCKET: AlgorithmCode = 2;
const perSecond = (limit: number, burst = limit): WindowSpec => ({ limit, windowMs: 1000, burst });
const T0 = 1_750_000_000_000; // a whole second

describe("windowIndex", () => {
  it("is 0 at or before the epoch and floor(t / w) after", () => {
    expect(windowIndex(0, 1000)).toBe(0);
    expect(windowIndex(-5, 1000)).toBe(0);
    expect(windowIndex(999.9, 1000)).toBe(0);
    expect(windowIndex(1000, 1000)).toBe(1);
    expect(windowIndex(T0 + 59_999, 60_000)).toBe(Math.floor((T0 + 59_999) / 60_000));
  });
});

describe("capacity", () => {
  it("is the burst of a token bucket and the limit of a counter", () => {
    expect(capacity(BUCKET, perSecond(10, 3))).toBe(3);
    expect(capacity(FIXED, perSecond(10, 3))).toBe(10);
    expect(capacity(SLIDING, perSecond(10, 3))).toBe(10);
  });
});

describe("roll", () => {
  it("keeps the window for the same or an earlier index", () => {
    const s = { idx: 5, cur: 3, prev: 2, tat: 0 };
    roll(FIXED, perSecond(10), s, 5500);
    roll(FIXED, perSecond(10), s, 4500);
    expect(s).toEqual({ idx: 5, cur: 3, prev: 2, tat: 0 });
  });
  it("moves cur to prev on the next window and clears both after a gap", () => {
    const s = { idx: 5, cur: 3, prev: 2, tat: 0 };
    roll(SLIDING, perSecond(10), s, 6000);
    expect(s).toEqual({ idx: 6, cur: 0, prev: 3, tat: 0 });
    roll(SLIDING, perSecond(10), s, 8000);
    expect(s).toEqual({ idx: 8, cur: 0, prev: 0, tat: 0 });
  });
  it("leaves a token bucket alone", () => {
    const s = { idx: 0, cur: 0, prev: 0, tat: 123 };
    roll(BUCKET, perSecond(10), s, T0);
    expect(s).toEqual({ idx: 0, cur: 0, prev: 0, tat: 123 });
  });
});

describe("usage and free", () => {
  it("fixed: the current count, zero once the window is over (without mutating)", () => {
    const s = emptyWindow();
    apply(FIXED, perSecond(10), s, T0 + 100, 4);
    expect(usage(FIXED, perSecond(10), s, T0 + 900)).toBe(4);
    expect(free(FIXED, perSecond(10), s, T0 + 900)).toBe(6);
    expect(usage(FIXED, perSecond(10), s, T0 + 1000)).toBe(0);
    expect(s.cur).toBe(4);
  });
  it("sliding: the previous window weighs by the part of it still inside the span", () => {
    const s = emptyWindow();
    apply(SLIDING, perSecond(10), s, T0 + 100, 8);
    apply(SLIDING, perSecond(10), s, T0 + 1250, 2);
    expect(usage(SLIDING, perSecond(10), s, T0 + 1250)).toBeCloseTo(8 * 0.75 + 2, 9);
    expect(usage(SLIDING, perSecond(10), s, T0 + 2500)).toBeCloseTo(2 * 0.5, 9);
    expect(usage(SLIDING, perSecond(10), s, T0 + 3000)).toBe(0);
  });
  it("token bucket: the backlog of the theoretical arrival time in units", () => {
    const s = emptyWindow();
    apply(BUCKET, perSecond(10, 5), s, T0, 3); // 100 ms per unit
    expect(s.tat).toBe(T0 + 300);
    expect(usage(BUCKET, perSecond(10, 5), s, T0 + 100)).toBeCloseTo(2, 9);
    expect(free(BUCKET, perSecond(10, 5), s, T0 + 100)).toBeCloseTo(3, 9);
    expect(usage(BUCKET, perSecond(10, 5), s, T0 + 400)).toBe(0);
  });
  it("free goes negative in debt", () => {
    const s = emptyWindow();
    apply(FIXED, perSecond(10), s, T0, 13);
    expect(free(FIXED, perSecond(10), s, T0)).toBe(-3);
  });
});

describe("apply", () => {
  it("saturates counters at COUNT_MAX", () => {
    const s = emptyWindow();
    apply(FIXED, perSecond(10), s, T0, COUNT_MAX - 1);
    apply(FIXED, perSecond(10), s, T0, 5);
    expect(s.cur).toBe(COUNT_MAX);
  });
  it("caps a token bucket's tat at burst + one window ahead", () => {
    const s = emptyWindow();
    apply(BUCKET, perSecond(10, 5), s, T0, 1000);
    expect(s.tat).toBe(T0 + 500 + 1000);
  });
  it("rolls even when adding nothing, and moves the tat up to now", () => {
    const c = { idx: 3, cur: 5, prev: 0, tat: 0 };
    apply(FIXED, perSecond(10), c, T0, 0);
    expect(c).toEqual({ idx: T0 / 1000, cur: 0, prev: 0, tat: 0 });
    const b = emptyWindow();
    apply(BUCKET, perSecond(10), b, T0, 0);
    expect(b.tat).toBe(T0);
  });
});

describe("applyPast", () => {
  const idx = T0 / 1000;
  it("charges hits of the current window to it", () => {
    const s = { idx, cur: 1, prev: 0, tat: 0 };
    applyPast(FIXED, perSecond(10), s, T0 + 5, 3);
    expect(s.cur).toBe(4);
  });
  it("rolls forward for hits of a later window", () => {
    const s = { idx, cur: 1, prev: 0, tat: 0 };
    applyPast(SLIDING, perSecond(10), s, T0 + 1005, 3);
    expect(s).toEqual({ idx: idx + 1, cur: 3, prev: 1, tat: 0 });
  });
  it("adds hits of the previous window to prev for sliding, drops them for fixed", () => {
    const sliding = { idx, cur: 1, prev: 2, tat: 0 };
    applyPast(SLIDING, perSecond(10), sliding, T0 - 2, 3);
    expect(sliding).toEqual({ idx, cur: 1, prev: 5, tat: 0 });
    const fixed = { idx, cur: 1, prev: 2, tat: 0 };
    applyPast(FIXED, perSecond(10), fixed, T0 - 2, 3);
    expect(fixed).toEqual({ idx, cur: 1, prev: 2, tat: 0 });
  });
  it("drops hits older than the previous window", () => {
    const s = { idx, cur: 1, prev: 2, tat: 0 };
    applyPast(SLIDING, perSecond(10), s, T0 - 1002, 3);
    expect(s).toEqual({ idx, cur: 1, prev: 2, tat: 0 });
  });
  it("applies a token bucket's past hits at their time, and n = 0 does nothing", () => {
    const s = emptyWindow();
    applyPast(BUCKET, perSecond(10), s, T0 - 50, 2);
    expect(s.tat).toBe(T0 - 50 + 200);
    applyPast(BUCKET, perSecond(10), s, T0 + 5000, 0);
    expect(s.tat).toBe(T0 + 150);
  });
});

describe("retryAfterMs", () => {
  it("fixed: 0 while a unit fits beside the reserved ones, else until the window ends", () => {
    const s = emptyWindow();
    apply(FIXED, perSecond(10), s, T0 + 100, 8);
    expect(retryAfterMs(FIXED, perSecond(10), s, T0 + 300, 1)).toBe(0);
    expect(retryAfterMs(FIXED, perSecond(10), s, T0 + 300, 2)).toBe(700);
  });
  it("sliding: until enough of the previous window has slid out", () => {
    const s = emptyWindow();
    apply(SLIDING, perSecond(10), s, T0 + 100, 10);
    roll(SLIDING, perSecond(10), s, T0 + 1000);
    // room = 10 - 1 - 0 - 0 = 9 of prev 10: f = 0.1 -> at = start + 100 ms
    expect(retryAfterMs(SLIDING, perSecond(10), s, T0 + 1000, 0)).toBe(100);
    expect(retryAfterMs(SLIDING, perSecond(10), s, T0 + 1100, 0)).toBe(0);
  });
  it("sliding: the current window alone is full -> into the next one", () => {
    const s = emptyWindow();
    apply(SLIDING, perSecond(10), s, T0 + 100, 10);
    // rn = 9, cur = 10: at = next + (1 - 0.9) x 1000 = T0 + 1100
    expect(retryAfterMs(SLIDING, perSecond(10), s, T0 + 100, 0)).toBe(1000);
    // reserved beyond the capacity: two windows
    expect(retryAfterMs(SLIDING, perSecond(10), s, T0 + 100, 10)).toBe(1900);
  });
  it("token bucket: until the backlog leaves room for one unit", () => {
    const s = emptyWindow();
    apply(BUCKET, perSecond(10, 2), s, T0, 2); // tat = T0 + 200, burst 2
    expect(retryAfterMs(BUCKET, perSecond(10, 2), s, T0, 0)).toBe(100);
    expect(retryAfterMs(BUCKET, perSecond(10, 2), s, T0 + 100, 0)).toBe(0);
    expect(retryAfterMs(BUCKET, perSecond(10, 2), s, T0, 5)).toBe(200);
  });

  const algorithms: Array<[string, AlgorithmCode]> = [
    ["fixed window", FIXED],
    ["sliding window", SLIDING],
    ["token bucket", BUCKET],
  ];
  for (const [name, alg] of algorithms) {
    it(`${name}: waiting exactly retryAfterMs always leaves >= 1 free unit`, () => {
      const arb = fc
        .record({
          limit: fc.integer({ min: 1, max: 300 }),
          windowMs: fc.oneof(fc.constantFrom(1000, 60_000, 3_600_000), fc.integer({ min: 10, max: 10_000 })),
          burstPart: fc.double({ min: 0, max: 1, noNaN: true }),
          start: fc.double({ min: 0, max: 1e7, noNaN: true }),
          hits: fc.array(
            fc.record({
              dt: fc.double({ min: 0, max: 2, noNaN: true }),
              n: fc.integer({ min: 0, max: 400 }),
            }),
            { maxLength: 12 },
          ),
          after: fc.double({ min: 0, max: 2, noNaN: true }),
          reservedPart: fc.double({ min: 0, max: 1, noNaN: true }),
        })
        .map((c) => {
          const burst = Math.max(1, Math.round(c.burstPart * c.limit));
          return { ...c, spec: { limit: c.limit, windowMs: c.windowMs, burst } };
        });
      fc.assert(
        fc.property(arb, (c) => {
          const state = emptyWindow();
          let t = T0 + c.start;
          for (const h of c.hits) {
            t += h.dt * c.spec.windowMs;
            apply(alg, c.spec, state, t, h.n);
          }
          t += c.after * c.spec.windowMs;
          const cap = capacity(alg, c.spec);
          const reserved = Math.floor(c.reservedPart * (cap - 1));
          const wait = retryAfterMs(alg, c.spec, state, t, reserved);
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(free(alg, c.spec, state, t + wait) - reserved).toBeGreaterThanOrEqual(1 - 1e-6);
        }),
        { numRuns: 3000, seed: 20250615 + alg },
      );
    });
  }
});

describe("resetMs", () => {
  it("counters: until the current window ends", () => {
    const s = emptyWindow();
    apply(FIXED, perSecond(10), s, T0 + 250, 1);
    expect(resetMs(FIXED, perSecond(10), s, T0 + 250)).toBe(750);
    expect(resetMs(SLIDING, perSecond(10), s, T0 + 1250)).toBe(750);
  });
  it("token bucket: until the tat, never negative", () => {
    const s = emptyWindow();
    apply(BUCKET, perSecond(10), s, T0, 3);
    expect(resetMs(BUCKET, perSecond(10), s, T0 + 100)).toBe(200);
    expect(resetMs(BUCKET, perSecond(10), s, T0 + 1000)).toBe(0);
  });
});

describe("keepSeen", () => {
  const step = fc.record({ dt: fc.integer({ min: 0, max: 2500 }), n: fc.integer({ min: 0, max: 30 }) });
  const algs = fc.constantFrom(FIXED, SLIDING, BUCKET);

  it("changes nothing on a store that kept its data, and gives the seen counts back to one that lost them", () => {
    fc.assert(
      fc.property(algs, fc.array(step, { minLength: 1, maxLength: 30 }), fc.nat(29), (alg, steps, cut) => {
        const spec: WindowSpec = { limit: 50, windowMs: 1000, burst: 40 };
        const stored = emptyWindow();
        let t = 1.75e12;
        let seen = emptyWindow();
        steps.forEach(({ dt, n }, i) => {
          t += dt;
          apply(alg, spec, stored, t, n);
          if (i === Math.min(cut, steps.length - 1)) seen = { ...stored };
        });
        const kept = { ...stored };
        keepSeen(kept, seen);
        expect(kept).toEqual(stored);
        const lost = emptyWindow();
        keepSeen(lost, seen);
        expect(lost).toEqual(seen);
      }),
    );
  });

  it("raises the previous count from a window seen just before the stored one", () => {
    const stored = { idx: 11, cur: 2, prev: 1, tat: 0 };
    keepSeen(stored, { idx: 10, cur: 7, prev: 3, tat: 0 });
    expect(stored).toEqual({ idx: 11, cur: 2, prev: 7, tat: 0 });
    keepSeen(stored, { idx: 9, cur: 50, prev: 50, tat: 0 });
    expect(stored).toEqual({ idx: 11, cur: 2, prev: 7, tat: 0 });
  });
});
