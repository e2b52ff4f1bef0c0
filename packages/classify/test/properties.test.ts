// Property tests (fast-check): retryAfterMs never throws, never returns a negative, NaN or over-cap
// value, and for an HTTP-date never undershoots the true remaining time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classify, type Failure, parseImfFixdate, RETRY_AFTER_CAP_MS, retryAfterMs } from "../src/index.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// Header-ish strings: arbitrary text, plus pieces of the grammars glued together.
const token = fc.constantFrom(
  "",
  " ",
  "\t",
  "-",
  "+",
  ".",
  "e",
  "E",
  "0x",
  "inf",
  "NaN",
  "GMT",
  "Sun,",
  ":",
  "1e400",
  "-0",
  ...MONTHS,
  "jan",
);
const glued = fc.array(fc.oneof(token, fc.nat({ max: 100_000 }).map(String), fc.string({ maxLength: 3 })), {
  maxLength: 8,
});
const headerText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme-ascii" }),
  glued.map((parts) => parts.join("")),
  glued.map((parts) => parts.join(" ")),
  fc.double().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
);
const nowMs = fc.integer({ min: -1e13, max: 1e14 });

function isValidHint(v: number | undefined): boolean {
  return v === undefined || (Number.isFinite(v) && v >= 0 && v <= RETRY_AFTER_CAP_MS && !Object.is(v, -0));
}

describe("retryAfterMs properties", () => {
  it("never throws and never returns a negative, NaN or over-cap value", () => {
    fc.assert(
      fc.property(fc.option(headerText), fc.option(headerText), nowMs, (ms, ra, now) => {
        const h: Record<string, string> = {};
        if (ms !== null) h["retry-after-ms"] = ms;
        if (ra !== null) h["retry-after"] = ra;
        const v = retryAfterMs(h, now);
        expect(isValidHint(v)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("for an HTTP-date is never shorter than the true remaining time, and at most a second longer", () => {
    // any second from 1970 to year 9999, formatted as an IMF-fixdate
    const at = fc.integer({ min: 0, max: 253_402_300_799 });
    fc.assert(
      fc.property(at, nowMs, (atS, now) => {
        const text = new Date(atS * 1000).toUTCString();
        expect(parseImfFixdate(text)).toBe(atS);
        const v = retryAfterMs({ "retry-after": text }, now)!;
        const remaining = atS * 1000 - now;
        expect(v).toBeGreaterThanOrEqual(Math.min(Math.max(0, remaining), RETRY_AFTER_CAP_MS));
        expect(v).toBeLessThanOrEqual(Math.min(Math.max(0, remaining + 1000), RETRY_AFTER_CAP_MS));
        expect(v % 1000).toBe(0);
      }),
      { numRuns: 3000 },
    );
  });

  it("dates near now: never shorter than the remainder however the clock falls within a second", () => {
    fc.assert(
      fc.property(nowMs, fc.integer({ min: -5, max: 4000 }), (now, aheadS) => {
        const atS = Math.floor(now / 1000) + aheadS;
        fc.pre(atS >= 0 && atS <= 253_402_300_799);
        const v = retryAfterMs({ "retry-after": new Date(atS * 1000).toUTCString() }, now)!;
        expect(v).toBeGreaterThanOrEqual(Math.min(Math.max(0, atS * 1000 - now), RETRY_AFTER_CAP_MS));
      }),
    );
  });

  it("a non-negative number of seconds reads as itself in ms, capped", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (s) => {
        expect(retryAfterMs({ "retry-after": String(s) })).toBe(Math.min(s * 1000, RETRY_AFTER_CAP_MS) + 0);
        expect(retryAfterMs({ "retry-after-ms": String(s), "retry-after": "1" })).toBe(
          Math.min(s, RETRY_AFTER_CAP_MS) + 0,
        );
      }),
    );
  });
});

describe("classify properties", () => {
  const headers = fc.dictionary(
    fc.constantFrom(
      "retry-after",
      "Retry-After",
      "retry-after-ms",
      "current-concurrent-requests",
      "maximum-concurrent-requests",
      "x-other",
    ),
    headerText,
  );
  const body = fc.option(fc.oneof(fc.string({ maxLength: 5000 }), fc.uint8Array({ maxLength: 5000 })), {
    nil: undefined,
  });
  const failure: fc.Arbitrary<Failure> = fc.oneof(
    fc.record({
      kind: fc.constant("status" as const),
      code: fc.integer({ min: 0, max: 999 }),
      headers,
      body,
    }),
    fc.record({ kind: fc.constant("wsClose" as const), code: fc.integer({ min: 0, max: 5000 }) }),
    fc.constantFrom<Failure>({ kind: "timeout" }, { kind: "connect" }, { kind: "other" }),
  );

  it("never throws; verdicts are coherent", () => {
    fc.assert(
      fc.property(failure, nowMs, (f, now) => {
        const v = classify(f, { nowMs: now });
        expect(isValidHint(v.retryAfterMs)).toBe(true);
        if (v.callerError) expect(v.retryable || v.failover).toBe(false);
        if (v.vendorConcurrency) expect(v.breaker).toEqual({ kind: "ignore" });
        if (v.breaker.kind === "openFor") expect(v.breaker.ms).toBe(v.retryAfterMs);
        if (f.kind === "status" && v.retryable) expect([408, 409, 429, 500, 502, 503, 504]).toContain(f.code);
      }),
      { numRuns: 2000 },
    );
  });
});
