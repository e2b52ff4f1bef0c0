import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDurationMs, parseRfc3339Ms, upstreamBudgets } from "../src/index.js";

const NOW = Date.parse("2026-11-30T22:00:00Z");

describe("upstreamBudgets", () => {
  it("reads OpenAI's request and token budgets, resets as durations", () => {
    const headers = new Headers({
      "x-ratelimit-limit-requests": "10000",
      "x-ratelimit-remaining-requests": "9999",
      "x-ratelimit-reset-requests": "6ms",
      "x-ratelimit-limit-tokens": "2000000",
      "x-ratelimit-remaining-tokens": "1999000",
      "x-ratelimit-reset-tokens": "1m30s",
    });
    expect(upstreamBudgets(headers, NOW)).toEqual([
      { resource: "requests", source: "openai", limit: 10000, remaining: 9999, resetInMs: 6 },
      { resource: "tokens", source: "openai", limit: 2000000, remaining: 1999000, resetInMs: 90_000 },
    ]);
  });

  it("reads Anthropic's budgets from a plain record, resets as RFC 3339 times", () => {
    const budgets = upstreamBudgets(
      {
        "Anthropic-RateLimit-Requests-Limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2026-11-30T22:00:12Z",
        "anthropic-ratelimit-input-tokens-remaining": ["40000"],
        "anthropic-ratelimit-output-tokens-reset": "2026-11-30T21:59:00Z",
      },
      NOW,
    );
    expect(budgets).toEqual([
      { resource: "requests", source: "anthropic", limit: 50, remaining: 0, resetInMs: 12_000 },
      { resource: "input_tokens", source: "anthropic", remaining: 40000 },
      { resource: "output_tokens", source: "anthropic", resetInMs: 0 },
    ]);
  });

  it("leaves out what does not parse, caps resets at one hour, and reports nothing without headers", () => {
    expect(upstreamBudgets(new Headers(), NOW)).toEqual([]);
    expect(
      upstreamBudgets(
        {
          "x-ratelimit-limit-requests": "-5",
          "x-ratelimit-remaining-requests": "0x10",
          "x-ratelimit-reset-requests": "soon",
          "x-ratelimit-remaining-tokens": "99999999999999999999",
          "x-ratelimit-reset-tokens": "90000s",
          "anthropic-ratelimit-tokens-reset": "tomorrow",
        },
        NOW,
      ),
    ).toEqual([{ resource: "tokens", source: "openai", resetInMs: 3_600_000 }]);
  });

  it("never throws on hostile header objects", () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const throwing = {
      get: () => {
        throw new Error("boom");
      },
    };
    expect(upstreamBudgets(revoked.proxy, NOW)).toEqual([]);
    expect(upstreamBudgets(throwing, NOW)).toEqual([]);
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()))), (record) => {
        for (const b of upstreamBudgets(record, NOW)) {
          for (const v of [b.limit, b.remaining, b.resetInMs])
            if (v !== undefined) expect(v).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it("rejects a non-finite clock reading", () => {
    expect(() => upstreamBudgets(new Headers(), Number.NaN)).toThrow(RangeError);
  });
});

describe("parseDurationMs", () => {
  it.each([
    ["20ms", 20],
    ["1s", 1000],
    ["0.5s", 500],
    ["6m0s", 360_000],
    ["1h2m3.5s", 3_723_500],
    ["2m", 120_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(["", "s", "-1s", "1d", "1 s", "ms1"])("%j is not a duration", (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});

describe("hostile reset and count values", () => {
  it("leaves out impossible calendar times instead of rolling them over", () => {
    for (const reset of [
      "2026-02-30T22:00:00Z",
      "2026-11-31T22:00:00Z",
      "2026-11-30T24:00:00Z",
      "2026-11-30T22:60:00Z",
      "2026-11-30T22:00:05+24:00",
      "2026-13-01T00:00:00Z",
      "1969-12-31T23:59:59Z",
      "2026-11-30 22:00:05Z",
      "2026-11-30T22:00:05",
    ]) {
      expect(upstreamBudgets({ "anthropic-ratelimit-requests-reset": reset }, NOW), reset).toEqual([]);
    }
  });

  it("reads offsets, fractions, lower-case separators, 29 February of a leap year and a leap second", () => {
    const reset = (text: string) =>
      upstreamBudgets({ "anthropic-ratelimit-tokens-reset": text }, NOW)[0]?.resetInMs;
    expect(reset("2026-11-30T23:00:05+01:00")).toBe(5_000);
    expect(reset("2026-11-30T21:30:02.5-00:30")).toBe(2_500);
    expect(reset("2026-11-30t22:00:01z")).toBe(1_000);
    expect(reset("2026-11-30T21:59:60Z")).toBe(0); // the second before it: already past
    expect(parseRfc3339Ms("2028-02-29T00:00:00Z")).toBe(Date.parse("2028-02-29T00:00:00Z"));
    expect(parseRfc3339Ms("2027-02-29T00:00:00Z")).toBeUndefined();
  });

  it("agrees with the platform on every valid ISO time it prints", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1970-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        (d) => {
          expect(parseRfc3339Ms(d.toISOString())).toBe(d.getTime());
        },
      ),
    );
  });

  it("leaves out joined repeats, non-ASCII digits, signs and huge values", () => {
    const long = "1".repeat(100_000);
    expect(
      upstreamBudgets(
        {
          "x-ratelimit-remaining-requests": "0, 5",
          "x-ratelimit-reset-requests": "1s, 2s",
          "x-ratelimit-remaining-tokens": "١٢",
          "x-ratelimit-limit-tokens": long,
          "x-ratelimit-reset-tokens": `${long}x`,
          "anthropic-ratelimit-requests-remaining": "-0",
          "anthropic-ratelimit-tokens-remaining": "5.0",
          "anthropic-ratelimit-tokens-reset": `${long}-01-01T00:00:00Z`,
        },
        NOW,
      ),
    ).toEqual([]);
  });
});
