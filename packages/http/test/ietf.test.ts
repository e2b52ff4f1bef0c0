// Extension: IETF RateLimit / RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers).
import { describe, expect, it } from "vitest";
import { IETF_EXPOSE_HEADERS, rateLimited, rateLimitedResponse, writeHeaders } from "../src/index.js";

const NOW = 1_750_000_000_000;

describe("IETF fields", () => {
  it("ietf: true adds one 'default' policy from the headers, after the x-ratelimit-* ones", () => {
    const out: Record<string, string> = {};
    writeHeaders({ limit: 60, remaining: 7, reset: 1_750_000_030 }, out, { ietf: true, nowMs: NOW });
    expect(Object.entries(out)).toEqual([
      ["x-ratelimit-limit", "60"],
      ["x-ratelimit-remaining", "7"],
      ["x-ratelimit-reset", "1750000030"],
      ["ratelimit", '"default";r=7;t=30'],
      ["ratelimit-policy", '"default";q=60'],
    ]);
  });

  it("several windows: one list member per window, names by window, t rounded up, never negative", () => {
    const out: Record<string, string> = {};
    writeHeaders({ limit: 10, remaining: 4, reset: 1_750_000_001 }, out, {
      nowMs: NOW + 500,
      ietf: [
        { limit: 10, windowMs: 1000, remaining: 4, reset: 1_750_000_001 },
        { limit: 300, windowMs: 60_000, remaining: 120, reset: 1_750_000_060 },
        { limit: 1000, windowMs: 3_600_000, remaining: 999, reset: 1_749_999_000 },
        { name: "daily", limit: 5000, windowMs: 86_400_000, remaining: 4000, reset: 1_750_050_000 },
      ],
    });
    expect(out.ratelimit).toBe(
      '"second";r=4;t=1, "minute";r=120;t=60, "hour";r=999;t=0, "daily";r=4000;t=50000',
    );
    expect(out["ratelimit-policy"]).toBe(
      '"second";q=10;w=1, "minute";q=300;w=60, "hour";q=1000;w=3600, "daily";q=5000;w=86400',
    );
  });

  it("other window lengths are named by seconds; names are SF strings with escapes", () => {
    const out: Record<string, string> = {};
    writeHeaders({ limit: 1, remaining: 1, reset: 1_750_000_000 }, out, {
      nowMs: NOW,
      ietf: [
        { limit: 5, windowMs: 10_000, remaining: 5, reset: 1_750_000_010 },
        { name: 'a"b\\c', limit: 5, remaining: 5, reset: 1_750_000_000 },
      ],
    });
    expect(out["ratelimit-policy"]).toBe('"10s";q=5;w=10, "a\\"b\\\\c";q=5');
  });

  it("rejects what the draft cannot carry", () => {
    const bad = [
      [],
      [{ limit: 1, windowMs: 1500, remaining: 0, reset: 0 }],
      [{ limit: 1, windowMs: 0, remaining: 0, reset: 0 }],
      [{ name: "é", limit: 1, remaining: 0, reset: 0 }],
      [{ limit: 1e15, remaining: 0, reset: 0 }],
      [{ limit: 1, remaining: -1, reset: 0 }],
    ];
    for (const ietf of bad) {
      const out = {};
      expect(() => writeHeaders({ limit: 1, remaining: 0, reset: 0 }, out, { ietf, nowMs: NOW })).toThrow(
        RangeError,
      );
      expect(out).toEqual({});
    }
  });

  it("the rejection helpers carry them too, after retry-after", async () => {
    const r = rateLimited(
      { limit: 60, remaining: 0, reset: 1_750_000_012, retryAfter: 12 },
      { ietf: true, nowMs: NOW },
    );
    expect(Object.keys(r.headers)).toEqual([
      "content-type",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "retry-after",
      "ratelimit",
      "ratelimit-policy",
    ]);
    expect(r.headers.ratelimit).toBe('"default";r=0;t=12');
    const res = rateLimitedResponse(
      { limit: 60, remaining: 0, reset: 1_750_000_012 },
      { ietf: true, nowMs: NOW },
    );
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=60');
    expect(IETF_EXPOSE_HEADERS).toEqual([
      "retry-after",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "ratelimit",
      "ratelimit-policy",
    ]);
  });
});
