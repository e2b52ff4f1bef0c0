import { describe, expect, it } from "vitest";
import { Backoff, BackoffConfigError, secondsToMs } from "../src/index.js";

const low = () => 0;
const high = () => 0.999999;

describe("Backoff.standard: base 1 s, factor 2, additive jitter", () => {
  const b = Backoff.standard(10);

  it("has base 1 s, factor 2, max 10 s, additive jitter", () => {
    expect(b).toMatchObject({ baseMs: 1000, factor: 2, maxMs: 10_000, jitter: "additive" });
  });

  it("keeps each retry in its band at both ends of the jitter", () => {
    for (const random of [low, high, Math.random]) {
      expect(b.delay(0, random)).toBeGreaterThanOrEqual(1000);
      expect(b.delay(0, random)).toBeLessThanOrEqual(2000);
      expect(b.delay(1, random)).toBeGreaterThanOrEqual(2000);
      expect(b.delay(1, random)).toBeLessThanOrEqual(4000);
      expect(b.delay(2, random)).toBeGreaterThanOrEqual(4000);
      expect(b.delay(2, random)).toBeLessThanOrEqual(8000);
      expect(b.delay(10, random)).toBeLessThanOrEqual(10_000);
    }
  });

  it("never overflows on huge retry numbers", () => {
    expect(b.delay(1e9, high)).toBe(10_000);
    expect(b.delay(Number.POSITIVE_INFINITY, high)).toBe(10_000);
  });
});

describe("Backoff.interactive: base 250 ms, factor 2, full jitter", () => {
  it("stays under 250 ms for the first retry and under max for late ones", () => {
    const b = Backoff.interactive(5);
    for (let i = 0; i < 100; i++) {
      expect(b.delay(0)).toBeLessThanOrEqual(250);
      expect(b.delay(20)).toBeLessThanOrEqual(5000);
    }
    expect(b.delay(0, high)).toBeGreaterThan(249);
  });

  it("takes the base down to a max below 250 ms", () => {
    expect(Backoff.interactive(0.1).baseMs).toBe(100);
    expect(Backoff.interactive(0.1).jitter).toBe("full");
  });

  it("full jitter can reach zero", () => {
    expect(Backoff.interactive(5).delay(3, low)).toBe(0);
  });
});

describe("secondsToMs", () => {
  it("maps finite positive seconds, capped at an hour, to whole microseconds", () => {
    expect(secondsToMs(1.5)).toBe(1500);
    expect(secondsToMs(0.0000015)).toBe(0.002);
    expect(secondsToMs(7200)).toBe(3_600_000);
  });

  it("maps zero, negatives, NaN and Infinity to 0", () => {
    for (const s of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(secondsToMs(s)).toBe(0);
  });
});

describe("new Backoff", () => {
  it("applies no jitter with jitter none", () => {
    const b = new Backoff({ baseMs: 100, factor: 3, maxMs: 1000, jitter: "none" });
    expect([0, 1, 2, 3].map((n) => b.delay(n))).toEqual([100, 300, 900, 1000]);
  });

  it("names the bad field", () => {
    const ok = { baseMs: 1, factor: 2, maxMs: 10, jitter: "none" } as const;
    expect(() => new Backoff({ ...ok, baseMs: -1 })).toThrow(/baseMs/);
    expect(() => new Backoff({ ...ok, factor: 0.5 })).toThrow(BackoffConfigError);
    expect(() => new Backoff({ ...ok, maxMs: Number.NaN })).toThrow(/maxMs/);
    // @ts-expect-error an unknown jitter is rejected at run time too
    expect(() => new Backoff({ ...ok, jitter: "half" })).toThrow(/jitter/);
  });
});
