// The delay hint, its strict number grammar and the IMF-fixdate parser.
import { describe, expect, it } from "vitest";
import { parseImfFixdate, RETRY_AFTER_CAP_MS, retryAfterMs } from "../src/index.js";

const NOW = 1_750_000_000_500; // Unix ms, half-way through a second
const ra = (v: string, nowMs = NOW) => retryAfterMs({ "retry-after": v }, nowMs);
const ms = (v: string, fallback?: string) =>
  retryAfterMs(
    fallback === undefined ? { "retry-after-ms": v } : { "retry-after-ms": v, "retry-after": fallback },
    NOW,
  );

describe("retry-after-ms", () => {
  it("reads a trimmed float of milliseconds, fractions kept, capped at one hour", () => {
    expect(ms("1500")).toBe(1500);
    expect(ms(" 12.75 ")).toBe(12.75);
    expect(ms("0")).toBe(0);
    expect(ms("-0")).toBe(0);
    expect(Object.is(ms("-0"), 0)).toBe(true);
    expect(ms("1e3")).toBe(1000);
    expect(ms(".5")).toBe(0.5);
    expect(ms("5.")).toBe(5);
    expect(ms("+7")).toBe(7);
    expect(ms("99999999")).toBe(RETRY_AFTER_CAP_MS);
  });

  it("falls through to Retry-After when missing, unreadable, negative, NaN or infinite", () => {
    for (const bad of [
      "",
      " ",
      "abc",
      "-1",
      "NaN",
      "inf",
      "-Infinity",
      "1e999",
      "0x10",
      "1_000",
      "1 000",
      "١٢",
    ]) {
      expect(ms(bad, "2"), JSON.stringify(bad)).toBe(2000);
      expect(ms(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});

describe("Retry-After seconds (strict grammar, never Number())", () => {
  it("reads finite non-negative floats, capped at 3600 s", () => {
    expect(ra("0")).toBe(0);
    expect(ra("1.5")).toBe(1500);
    expect(ra("  30\t")).toBe(30_000);
    expect(ra("2e1")).toBe(20_000);
    expect(ra("3600")).toBe(3_600_000);
    expect(ra("3601")).toBe(3_600_000);
  });

  it("gives no hint for what Number() would misread", () => {
    // Number("") === 0, Number("0x10") === 16, Number("0b1") === 1, Number("Infinity") === Infinity
    for (const bad of ["", "   ", "0x10", "0b1", "0o7", "1_0", "1,5", "1..2", ".", "e3", "1e", "++1", "١"]) {
      expect(ra(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("a negative, infinite or NaN number gives no hint and is not tried as a date", () => {
    for (const bad of ["-1", "-0.5", "inf", "Infinity", "-inf", "nan", "NaN", "1e400"]) {
      expect(ra(bad), bad).toBeUndefined();
    }
  });

  it("a value with non-ASCII or control characters is unreadable", () => {
    expect(ra("3\u0000")).toBeUndefined();
    expect(ra("3\n")).toBeUndefined();
    expect(ra("Sun, 06 Nov 2094 08:49:37 GMT\u00a0")).toBeUndefined();
  });
});

describe("Retry-After HTTP-date (IMF-fixdate)", () => {
  it("parses the RFC 9110 example and the Unix epoch", () => {
    expect(parseImfFixdate("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(784_111_777);
    expect(parseImfFixdate("Thu, 01 Jan 1970 00:00:00 GMT")).toBe(0);
    expect(parseImfFixdate("Wed, 31 Dec 1969 23:59:59 GMT")).toBeUndefined();
    expect(parseImfFixdate("Tue, 29 Feb 2000 12:00:00 GMT")).toBe(Date.UTC(2000, 1, 29, 12) / 1000);
    expect(parseImfFixdate("Sun, 31 Dec 2000 23:59:59 GMT")).toBe(Date.UTC(2000, 11, 31, 23, 59, 59) / 1000);
  });

  it("agrees with Date.UTC over many dates", () => {
    for (let y = 1970; y <= 2400; y += 7) {
      for (const [mo, d] of [
        [0, 1],
        [1, 28],
        [2, 1],
        [5, 30],
        [11, 31],
      ] as const) {
        const name = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][mo];
        const s = `Xyz, ${String(d).padStart(2, "0")} ${name} ${y} 23:59:58 GMT`;
        expect(parseImfFixdate(s), s).toBe(Date.UTC(y, mo, d, 23, 59, 58) / 1000);
      }
    }
  });

  it("ignores the weekday, accepts any run of spaces and tabs, a leap second, and day 31 of any month", () => {
    expect(parseImfFixdate("Mon, 06 Nov 1994 08:49:37 GMT")).toBe(784_111_777);
    expect(parseImfFixdate("x 6 Nov 1994 8:49:37 GMT")).toBe(784_111_777);
    expect(parseImfFixdate("  Sun,\t06   Nov 1994 08:49:37  GMT ")).toBe(784_111_777);
    expect(parseImfFixdate("Sun, 06 Nov 1994 08:49:60 GMT")).toBe(784_111_800);
    // no day-of-month check beyond 1..31: 31 Feb is 3 Mar (2 Mar in a leap year)
    expect(parseImfFixdate("x 31 Feb 2001 00:00:00 GMT")).toBe(Date.UTC(2001, 2, 3) / 1000);
  });

  it("rejects what is not an IMF-fixdate", () => {
    for (const bad of [
      "Sun, 06 Nov 1994 08:49:37", // 5 tokens
      "Sun, 06 Nov 1994 08:49:37 UTC",
      "Sun, 06 Nov 1994 08:49:37 gmt",
      "Sun, 06 nov 1994 08:49:37 GMT", // month is case-sensitive
      "Sun, 06 November 1994 08:49:37 GMT",
      "Sun, 00 Nov 1994 08:49:37 GMT",
      "Sun, 32 Nov 1994 08:49:37 GMT",
      "Sun, -6 Nov 1994 08:49:37 GMT",
      "Sun, 6.0 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 24:00:00 GMT",
      "Sun, 06 Nov 1994 23:60:00 GMT",
      "Sun, 06 Nov 1994 23:59:61 GMT",
      "Sun, 06 Nov 1994 08:49 GMT",
      "Sun, 06 Nov 1994 08:49:37:00 GMT",
      "Sun, 06 Nov 1994 08::37 GMT",
      "Sun, 06 Nov 1994 08:-1:37 GMT",
      "Sun, 06 Nov 94x 08:49:37 GMT",
      "Sun, 06 Nov 99999999999999999999 08:49:37 GMT", // beyond i64
      "Sunday, 06-Nov-94 08:49:37 GMT", // RFC 850
      "Sun Nov  6 08:49:37 1994", // asctime
      "",
    ]) {
      expect(parseImfFixdate(bad), bad).toBeUndefined();
    }
  });

  it("waits whole seconds from now truncated to a second: never shorter than the true remainder", () => {
    const nowS = Math.floor(NOW / 1000);
    const at = new Date((nowS + 10) * 1000).toUTCString(); // toUTCString is an IMF-fixdate
    // true remainder is 9.5 s; the hint is 10 s
    expect(ra(at)).toBe(10_000);
    expect(ra(at, nowS * 1000)).toBe(10_000);
    expect(ra(at, nowS * 1000 + 999)).toBe(10_000);
    expect(ra(new Date((nowS + 7200) * 1000).toUTCString())).toBe(3_600_000);
    expect(ra(new Date((nowS - 5) * 1000).toUTCString())).toBe(0);
  });

  it("a far-future year is capped; a year beyond i64 is no date", () => {
    expect(ra("Sun, 06 Nov 999999999 08:49:37 GMT")).toBe(3_600_000);
    expect(ra("Sun, 06 Nov 9223372036854775808 08:49:37 GMT")).toBeUndefined();
  });

  it("uses Date.now() by default and rejects a non-finite clock", () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const got = retryAfterMs({ "retry-after": at })!;
    expect(got).toBeGreaterThanOrEqual(59_000);
    expect(got).toBeLessThanOrEqual(61_000);
    expect(() => retryAfterMs({}, Number.NaN)).toThrow(RangeError);
  });
});

describe("header inputs", () => {
  it("reads a Fetch Headers, a plain record in any case, Node's IncomingHttpHeaders and a Map", () => {
    expect(retryAfterMs(new Headers({ "Retry-After": "3" }))).toBe(3000);
    expect(retryAfterMs({ "RETRY-AFTER": "3" })).toBe(3000);
    expect(retryAfterMs({ "Retry-After-Ms": "250", "retry-after": "3" })).toBe(250);
    const node: import("node:http").IncomingHttpHeaders = { "retry-after": "4", "set-cookie": ["a=b"] };
    expect(retryAfterMs(node)).toBe(4000);
    expect(retryAfterMs(new Map([["retry-after", "5"]]))).toBe(5000);
  });

  it("reads the first of repeated values in a record, and numbers", () => {
    expect(retryAfterMs({ "retry-after": ["6", "9"] })).toBe(6000);
    expect(retryAfterMs({ "retry-after": 8 })).toBe(8000);
    expect(retryAfterMs({ "retry-after": [] })).toBeUndefined();
    expect(retryAfterMs({ "retry-after": undefined })).toBeUndefined();
    expect(retryAfterMs({ "retry-after": null })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });

  it("a Fetch Headers joins repeated values, which then read as no hint", () => {
    const h = new Headers();
    h.append("retry-after", "6");
    h.append("retry-after", "9");
    expect(retryAfterMs(h)).toBeUndefined();
  });
});
