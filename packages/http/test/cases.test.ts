// Names, the expose list, the exact bodies, writeHeaders, rateLimited, concurrencyLimited.
import { describe, expect, it } from "vitest";
import {
  CONCURRENCY_LIMITED_BODY,
  concurrencyLimited,
  EXPOSE_HEADERS,
  RATE_LIMITED_BODY,
  rateLimited,
  WS_CLOSE_TRY_AGAIN_LATER,
  writeHeaders,
} from "../src/index.js";

describe("documented header and body cases", () => {
  it("both bodies parse and error.type is rate_limit_error; exact bytes", () => {
    for (const b of [RATE_LIMITED_BODY, CONCURRENCY_LIMITED_BODY]) {
      expect(JSON.parse(b).error.type).toBe("rate_limit_error");
    }
    expect(RATE_LIMITED_BODY).toBe(
      '{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":"rate_limit_exceeded"}}',
    );
    expect(CONCURRENCY_LIMITED_BODY).toBe(
      '{"error":{"message":"Too many concurrent requests for this deployment","type":"rate_limit_error","code":"concurrency_limit_exceeded"}}',
    );
  });

  it("rateLimited({limit 60, remaining 0, reset 1750000060, retryAfter 12}): 429 with the headers in order", () => {
    const r = rateLimited({ limit: 60, remaining: 0, reset: 1_750_000_060, retryAfter: 12 });
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("12");
    expect(r.headers["x-ratelimit-limit"]).toBe("60");
    expect(r.headers["x-ratelimit-remaining"]).toBe("0");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(Object.entries(r.headers)).toEqual([
      ["content-type", "application/json"],
      ["x-ratelimit-limit", "60"],
      ["x-ratelimit-remaining", "0"],
      ["x-ratelimit-reset", "1750000060"],
      ["retry-after", "12"],
    ]);
    expect(r.body).toBe(RATE_LIMITED_BODY);
  });

  it("concurrencyLimited(0): retry-after 1, the concurrency body, no x-ratelimit-*", () => {
    const r = concurrencyLimited(0);
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.body).toContain("concurrency_limit_exceeded");
    expect(Object.entries(r.headers)).toEqual([
      ["content-type", "application/json"],
      ["retry-after", "1"],
    ]);
    expect(concurrencyLimited(7).headers["retry-after"]).toBe("7");
    expect(concurrencyLimited(-3).headers["retry-after"]).toBe("1");
    expect(concurrencyLimited(2.2).headers["retry-after"]).toBe("3");
  });

  it("EXPOSE_HEADERS in order; WS_CLOSE_TRY_AGAIN_LATER = 1013", () => {
    expect(EXPOSE_HEADERS).toEqual([
      "retry-after",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
    ]);
    expect(Object.isFrozen(EXPOSE_HEADERS)).toBe(true);
    expect(WS_CLOSE_TRY_AGAIN_LATER).toBe(1013);
  });

  it("writeHeaders sets the three x-ratelimit-* (replacing) and retry-after only when present", () => {
    const out: Record<string, unknown> = {
      "x-ratelimit-limit": "1",
      "X-RateLimit-Remaining": "9",
      other: "kept",
    };
    writeHeaders({ limit: 100, remaining: 42, reset: 1_750_000_001 }, out);
    expect(out).toEqual({
      "x-ratelimit-limit": "100",
      other: "kept",
      "x-ratelimit-remaining": "42",
      "x-ratelimit-reset": "1750000001",
    });
    writeHeaders({ limit: 100, remaining: 0, reset: 1_750_000_001, retryAfter: 3 }, out);
    expect(out["retry-after"]).toBe("3");
  });
});
