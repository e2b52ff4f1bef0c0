// Every documented classification case, plus the rule table row by row.
import { describe, expect, it } from "vitest";
import {
  CONCURRENCY_RETRY_WAIT_MS,
  classify,
  type Failure,
  type HeadersInput,
  isRetryableStatus,
  isVendorConcurrency429,
  parseImfFixdate,
  retryAfterMs,
  type Verdict,
  vendorMaxConcurrency,
} from "../src/index.js";

const status = (code: number, headers?: HeadersInput, body?: string): Verdict =>
  classify({ kind: "status", code, headers, body });

describe("documented classification cases", () => {
  it("1. retryable set: 408 409 429 500 502 503 504; not 400 401 403 404 413 422; timeout, connect, ws 1011/1013", () => {
    for (const c of [408, 409, 429, 500, 502, 503, 504]) {
      expect(status(c).retryable, String(c)).toBe(true);
      expect(isRetryableStatus(c)).toBe(true);
    }
    for (const c of [400, 401, 403, 404, 413, 422]) {
      expect(status(c).retryable, String(c)).toBe(false);
      expect(isRetryableStatus(c)).toBe(false);
    }
    expect(classify({ kind: "timeout" }).retryable).toBe(true);
    expect(classify({ kind: "connect" }).retryable).toBe(true);
    expect(classify({ kind: "wsClose", code: 1011 }).retryable).toBe(true);
    expect(classify({ kind: "wsClose", code: 1013 }).retryable).toBe(true);
    expect(classify({ kind: "wsClose", code: 1000 }).retryable).toBe(false);
  });

  it("2. 401 402 403 429 500 503 fail over; 400 404 413 422 do not, are caller errors, and ignore the breaker", () => {
    for (const c of [401, 402, 403, 429, 500, 503]) expect(status(c).failover, String(c)).toBe(true);
    for (const c of [400, 404, 413, 422]) {
      const v = status(c);
      expect(v.failover, String(c)).toBe(false);
      expect(v.callerError, String(c)).toBe(true);
      expect(v.breaker, String(c)).toEqual({ kind: "ignore" });
    }
  });

  it("3. breaker tiers: 401/402 deployment, 503/timeout vendor, bare 429 deployment, 429 + retry-after 20 openFor 20 s", () => {
    expect(status(401).breaker).toEqual({ kind: "deployment" });
    expect(status(402).breaker).toEqual({ kind: "deployment" });
    expect(status(503).breaker).toEqual({ kind: "vendor" });
    expect(classify({ kind: "timeout" }).breaker).toEqual({ kind: "vendor" });
    expect(status(429).breaker).toEqual({ kind: "deployment" });
    const v = status(429, { "retry-after": "20" });
    expect(v.breaker).toEqual({ kind: "openFor", ms: 20_000 });
    expect(v.retryAfterMs).toBe(20_000);
  });

  it("4. a provider-concurrency 429 is retried after 250 ms and ignored by the breakers; header form too", () => {
    const v = status(429, undefined, '{"detail":{"status":"too_many_concurrent_requests","message":"..."}}');
    expect(v).toEqual({
      retryable: true,
      failover: true,
      breaker: { kind: "ignore" },
      callerError: false,
      retryAfterMs: CONCURRENCY_RETRY_WAIT_MS,
      vendorConcurrency: true,
    });
    expect(CONCURRENCY_RETRY_WAIT_MS).toBe(250);
    const h = { "current-concurrent-requests": "10", "maximum-concurrent-requests": "10" };
    expect(isVendorConcurrency429(h)).toBe(true);
    expect(vendorMaxConcurrency(h)).toBe(10);
  });

  it("5. retry-after 3 -> 3 s; plus retry-after-ms 1500 -> 1500 ms; a past date -> 0; soon -> none; 999999 -> 3600 s", () => {
    expect(retryAfterMs({ "retry-after": "3" })).toBe(3000);
    expect(retryAfterMs({ "retry-after": "3", "retry-after-ms": "1500" })).toBe(1500);
    expect(retryAfterMs({ "retry-after": "Sun, 06 Nov 1994 08:49:37 GMT" })).toBe(0);
    expect(parseImfFixdate("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(784_111_777);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "999999" })).toBe(3_600_000);
  });
});

describe("the rule table, in order", () => {
  const transient = { retryable: true, failover: true, breaker: { kind: "vendor" }, callerError: false };
  const nothing = {
    retryable: false,
    failover: false,
    breaker: { kind: "ignore" },
    callerError: false,
    vendorConcurrency: false,
  };

  it("timeout, connect, ws 1011 and 1013 are transient with no hint", () => {
    for (const f of [
      { kind: "timeout" },
      { kind: "connect" },
      { kind: "wsClose", code: 1011 },
      { kind: "wsClose", code: 1013 },
    ] as Failure[]) {
      expect(classify(f)).toEqual({ ...transient, vendorConcurrency: false });
    }
  });

  it("ws 1008 fails over against the deployment; other closes and other are inert", () => {
    expect(classify({ kind: "wsClose", code: 1008 })).toEqual({
      ...nothing,
      failover: true,
      breaker: { kind: "deployment" },
    });
    for (const code of [1000, 1001, 1006, 1009, 4000])
      expect(classify({ kind: "wsClose", code })).toEqual(nothing);
    expect(classify({ kind: "other" })).toEqual(nothing);
  });

  it("408 and 409 are transient but ignore the breaker, and carry the hint", () => {
    for (const c of [408, 409]) {
      expect(status(c)).toEqual({ ...transient, breaker: { kind: "ignore" }, vendorConcurrency: false });
      expect(status(c, { "retry-after": "2" }).retryAfterMs).toBe(2000);
    }
  });

  it("a concurrency 429 keeps the upstream's hint over the 250 ms default", () => {
    const v = status(429, { "retry-after": "4" }, "Concurrency Limit reached");
    expect(v.vendorConcurrency).toBe(true);
    expect(v.retryAfterMs).toBe(4000);
    expect(v.breaker).toEqual({ kind: "ignore" });
  });

  it("every concurrency marker counts, case-insensitively, within the first 4096 bytes only", () => {
    for (const m of [
      "TOO_MANY_CONCURRENT_REQUESTS",
      "concurrent_limit",
      "Concurrency_Limit",
      "Too Many Concurrent",
      "concurrency limit",
    ]) {
      expect(status(429, undefined, `{"msg":"${m}"}`).vendorConcurrency, m).toBe(true);
    }
    const late = `${"x".repeat(4096)}too_many_concurrent_requests`;
    expect(status(429, undefined, late).vendorConcurrency).toBe(false);
    const edge = `${"x".repeat(4096 - "concurrency limit".length)}concurrency limit`;
    expect(status(429, undefined, edge).vendorConcurrency).toBe(true);
    const bytes = new TextEncoder().encode('{"code":"concurrency_limit_exceeded"}');
    expect(classify({ kind: "status", code: 429, body: bytes }).vendorConcurrency).toBe(true);
    expect(classify({ kind: "status", code: 429, body: bytes.buffer as ArrayBuffer }).vendorConcurrency).toBe(
      true,
    );
  });

  it("a multi-byte character cut at byte 4096 does not hide or forge a marker", () => {
    // "a" + 2048 x "é" is 4097 bytes: the cut splits the last "é" (replaced), the marker stays unseen.
    const s = `a${"é".repeat(2048)}concurrency limit`;
    expect(status(429, undefined, s).vendorConcurrency).toBe(false);
    const within = `${"é".repeat(1000)}concurrency limit`;
    expect(status(429, undefined, within).vendorConcurrency).toBe(true);
  });

  it("the concurrency headers need both counts as unsigned integers, current >= maximum", () => {
    const cases: [Record<string, string>, boolean][] = [
      [{ "current-concurrent-requests": "9", "maximum-concurrent-requests": "10" }, false],
      [{ "current-concurrent-requests": "11", "maximum-concurrent-requests": "10" }, true],
      [{ "current-concurrent-requests": " 10 ", "maximum-concurrent-requests": "+10" }, true],
      [{ "current-concurrent-requests": "10" }, false],
      [{ "current-concurrent-requests": "-1", "maximum-concurrent-requests": "-2" }, false],
      [{ "current-concurrent-requests": "1e3", "maximum-concurrent-requests": "10" }, false],
      [{ "current-concurrent-requests": "0x10", "maximum-concurrent-requests": "10" }, false],
      [{ "Current-Concurrent-Requests": "10", "MAXIMUM-CONCURRENT-REQUESTS": "10" }, true],
      // above 2^53 the counts must not round to equal
      [
        {
          "current-concurrent-requests": "9007199254740993",
          "maximum-concurrent-requests": "9007199254740994",
        },
        false,
      ],
      [{ "current-concurrent-requests": "18446744073709551616", "maximum-concurrent-requests": "1" }, false],
    ];
    for (const [h, want] of cases) expect(isVendorConcurrency429(h), JSON.stringify(h)).toBe(want);
    const v = status(429, { "current-concurrent-requests": "5", "maximum-concurrent-requests": "5" });
    expect(v.vendorConcurrency).toBe(true);
    expect(vendorMaxConcurrency({})).toBeUndefined();
    expect(vendorMaxConcurrency({ "maximum-concurrent-requests": "ten" })).toBeUndefined();
  });

  it("other 429: openFor(hint) with a hint, deployment without", () => {
    expect(status(429)).toEqual({ ...transient, breaker: { kind: "deployment" }, vendorConcurrency: false });
    expect(status(429, { "retry-after-ms": "1500.5" })).toEqual({
      ...transient,
      breaker: { kind: "openFor", ms: 1500.5 },
      retryAfterMs: 1500.5,
      vendorConcurrency: false,
    });
  });

  it("500 502 503 504 are transient with the hint", () => {
    for (const c of [500, 502, 503, 504]) {
      expect(status(c)).toEqual({ ...transient, vendorConcurrency: false });
      expect(status(c, { "retry-after": "7" }).retryAfterMs).toBe(7000);
    }
  });

  it("401 402 403 fail over against the deployment and drop any hint", () => {
    for (const c of [401, 402, 403]) {
      expect(status(c, { "retry-after": "7" })).toEqual({
        ...nothing,
        failover: true,
        breaker: { kind: "deployment" },
      });
    }
  });

  it("400 404 405 411 413 414 415 422 are caller errors, hint dropped", () => {
    for (const c of [400, 404, 405, 411, 413, 414, 415, 422]) {
      expect(status(c, { "retry-after": "7" })).toEqual({ ...nothing, callerError: true });
    }
  });

  it("other >= 500 fails over against the vendor without retry", () => {
    for (const c of [501, 505, 520, 599]) {
      expect(status(c, { "retry-after": "7" })).toEqual({
        ...nothing,
        failover: true,
        breaker: { kind: "vendor" },
      });
    }
  });

  it("anything else is inert; callerError when >= 400", () => {
    for (const c of [200, 204, 301, 304, 399]) expect(status(c)).toEqual(nothing);
    for (const c of [406, 410, 412, 416, 418, 451, 499])
      expect(status(c)).toEqual({ ...nothing, callerError: true });
  });

  it("a verdict without a hint has no retryAfterMs key at all", () => {
    expect("retryAfterMs" in status(503)).toBe(false);
  });
});

describe("JavaScript callers", () => {
  it("null headers and body read as absent", () => {
    const f = { kind: "status", code: 429, headers: null, body: null } as unknown as Failure;
    expect(classify(f)).toMatchObject({ retryable: true, breaker: { kind: "deployment" } });
    expect(isVendorConcurrency429(null as unknown as undefined, null as unknown as undefined)).toBe(false);
    expect(classify({ kind: "nonsense" } as unknown as Failure)).toMatchObject({
      retryable: false,
      failover: false,
    });
  });
});
