// Extensions of issue 7: quota 429s, failureFrom / failureFromResponse.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  classify,
  type Failure,
  failureFrom,
  failureFromResponse,
  isQuotaExhausted429,
} from "../src/index.js";

describe("quota exhaustion in a 429 body", () => {
  const openaiQuota = JSON.stringify({
    error: {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    },
  });

  it("fails over without a retry, against the deployment", () => {
    const v = classify({ kind: "status", code: 429, body: openaiQuota });
    expect(v).toEqual({
      retryable: false,
      failover: true,
      breaker: { kind: "deployment" },
      callerError: false,
      vendorConcurrency: false,
    });
  });

  it("keeps a hint: the breaker opens for it and the verdict carries it", () => {
    const v = classify({ kind: "status", code: 429, headers: { "retry-after": "60" }, body: openaiQuota });
    expect(v.retryable).toBe(false);
    expect(v.breaker).toEqual({ kind: "openFor", ms: 60_000 });
    expect(v.retryAfterMs).toBe(60_000);
  });

  it("recognises the markers case-insensitively; a rate 429 or another status is untouched", () => {
    for (const b of ['{"code":"QUOTA_EXCEEDED"}', "billing_hard_limit_reached", "Insufficient_Quota"]) {
      expect(isQuotaExhausted429(b), b).toBe(true);
    }
    expect(isQuotaExhausted429('{"error":{"code":"rate_limit_exceeded"}}')).toBe(false);
    expect(isQuotaExhausted429(undefined)).toBe(false);
    // Gemini's per-minute 429 says "exceeded your current quota" but refills: still retried.
    expect(classify({ kind: "status", code: 429, body: "You exceeded your current quota" }).retryable).toBe(
      true,
    );
    // quota words in a 503 change nothing
    expect(classify({ kind: "status", code: 503, body: openaiQuota }).retryable).toBe(true);
  });

  it("a provider-concurrency 429 wins over quota words (rule order)", () => {
    const v = classify({
      kind: "status",
      code: 429,
      body: "too many concurrent requests; insufficient_quota",
    });
    expect(v.vendorConcurrency).toBe(true);
    expect(v.retryable).toBe(true);
  });
});

function codeError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe("failureFrom", () => {
  it("maps undici and Node error codes", () => {
    const cases: [string, Failure["kind"]][] = [
      ["UND_ERR_CONNECT_TIMEOUT", "connect"],
      ["UND_ERR_HEADERS_TIMEOUT", "timeout"],
      ["UND_ERR_BODY_TIMEOUT", "timeout"],
      ["UND_ERR_SOCKET", "connect"],
      ["ECONNREFUSED", "connect"],
      ["ECONNRESET", "connect"],
      ["ENOTFOUND", "connect"],
      ["EAI_AGAIN", "connect"],
      ["ETIMEDOUT", "timeout"],
      ["EHOSTUNREACH", "connect"],
      ["EPIPE", "connect"],
      ["ERR_SOMETHING_ELSE", "other"],
    ];
    for (const [code, kind] of cases) expect(failureFrom(codeError(code)).kind, code).toBe(kind);
  });

  it("follows fetch's TypeError cause and an AggregateError's errors", () => {
    const fetchFailed = new TypeError("fetch failed", { cause: codeError("ECONNREFUSED") });
    expect(failureFrom(fetchFailed)).toEqual({ kind: "connect" });
    const happyEyeballs = new AggregateError([new Error("v6"), codeError("ETIMEDOUT")], "connect failed");
    expect(failureFrom(new TypeError("fetch failed", { cause: happyEyeballs }))).toEqual({ kind: "timeout" });
  });

  it("stops on cycles and deep chains without throwing", () => {
    const a: Error & { cause?: unknown } = new Error("a");
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect(failureFrom(a)).toEqual({ kind: "other" });
    let deep: Error = codeError("ECONNRESET");
    for (let i = 0; i < 20; i++) deep = new Error(`wrap ${i}`, { cause: deep });
    expect(failureFrom(deep)).toEqual({ kind: "other" });
  });

  it("TimeoutError is a timeout, AbortError (the caller cancelled) is other", async () => {
    const signal = AbortSignal.timeout(0);
    await new Promise((r) => setTimeout(r, 20)); // fired before fetch: it rejects with the reason
    const timedOut = await fetch("http://127.0.0.1:9", { signal }).catch((e) => e);
    expect((timedOut as Error).name).toBe("TimeoutError");
    expect(failureFrom(timedOut)).toEqual({ kind: "timeout" });
    const ctl = new AbortController();
    ctl.abort();
    const aborted = await fetch("http://127.0.0.1:9", { signal: ctl.signal }).catch((e) => e);
    expect((aborted as Error).name).toBe("AbortError");
    expect(failureFrom(aborted)).toEqual({ kind: "other" });
    expect(failureFrom(new DOMException("t", "TimeoutError"))).toEqual({ kind: "timeout" });
    expect(failureFrom(codeError("ABORT_ERR"))).toEqual({ kind: "other" });
    // an abort wrapping a network error is still the caller's abort
    expect(
      failureFrom(Object.assign(new DOMException("a", "AbortError"), { cause: codeError("ECONNRESET") })),
    ).toEqual({
      kind: "other",
    });
  });

  it("a Fetch Response is a status failure with its headers and the body given beside it", () => {
    const res = new Response("{}", { status: 429, headers: { "retry-after": "3" } });
    const f = failureFrom(res, "too_many_concurrent_requests");
    expect(f.kind).toBe("status");
    expect(classify(f)).toMatchObject({ vendorConcurrency: true, retryAfterMs: 3000 });
    expect(classify(failureFrom(res))).toMatchObject({ breaker: { kind: "openFor", ms: 3000 } });
  });

  it("reads SDK-style errors: status, headers and a parsed JSON error (OpenAI), axios and got responses", () => {
    const openai = Object.assign(new Error("429 You exceeded your current quota"), {
      status: 429,
      headers: new Headers({ "x-request-id": "r" }),
      error: { code: "insufficient_quota", type: "insufficient_quota" },
    });
    expect(classify(failureFrom(openai))).toMatchObject({ retryable: false, failover: true });

    const axios = Object.assign(new Error("Request failed with status code 503"), {
      code: "ERR_BAD_RESPONSE",
      status: 503,
      response: { status: 503, headers: { "retry-after": "2" }, data: { error: "overloaded" } },
    });
    const fa = failureFrom(axios);
    expect(fa).toMatchObject({ kind: "status", code: 503, body: '{"error":"overloaded"}' });
    expect(classify(fa).retryAfterMs).toBe(2000);

    const got = Object.assign(new Error("Response code 429"), {
      name: "HTTPError",
      response: { statusCode: 429, headers: { "retry-after": "1" }, body: "concurrency limit" },
    });
    expect(classify(failureFrom(got))).toMatchObject({ vendorConcurrency: true, retryAfterMs: 1000 });
  });

  it("passes a Failure through, reads a WebSocket CloseEvent, and maps anything else to other", () => {
    const f: Failure = { kind: "wsClose", code: 1013 };
    expect(failureFrom(f)).toBe(f);
    expect(failureFrom({ type: "close", code: 1008, reason: "policy" })).toEqual({
      kind: "wsClose",
      code: 1008,
    });
    for (const x of [
      undefined,
      null,
      0,
      "boom",
      Symbol("s"),
      10n,
      new Error("x"),
      {},
      [],
      { status: 42 },
      { status: "500" },
    ]) {
      expect(failureFrom(x)).toEqual({ kind: "other" });
    }
  });
});

describe("failureFrom on real sockets", () => {
  let base = "";
  const server = createServer((req: IncomingMessage, res) => {
    if (req.url === "/busy") {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
      res.end(
        `${JSON.stringify({ detail: { status: "too_many_concurrent_requests" } })}${" ".repeat(10_000)}`,
      );
    } else if (req.url === "/hang") {
      // never answers
    } else {
      res.writeHead(503).end("down");
    }
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("failureFromResponse reads the body head from a clone, the response stays readable", async () => {
    const res = await fetch(`${base}/busy`);
    const f = await failureFromResponse(res);
    expect(f.kind === "status" && f.body instanceof Uint8Array && f.body.byteLength).toBe(4096);
    expect(classify(f)).toMatchObject({ vendorConcurrency: true, retryAfterMs: 2000 });
    expect((await res.text()).length).toBeGreaterThan(10_000);
  });

  it("failureFromResponse on a used body classifies on status and headers alone", async () => {
    const res = await fetch(`${base}/down`);
    await res.text();
    expect(await failureFromResponse(res)).toMatchObject({ kind: "status", code: 503 });
    expect(await failureFromResponse(new Response(null, { status: 502 }))).toMatchObject({ code: 502 });
  });

  it("a refused connection is connect; a timed-out fetch is timeout", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e) => e);
    expect(failureFrom(refused)).toEqual({ kind: "connect" });
    const slow = await fetch(`${base}/hang`, { signal: AbortSignal.timeout(50) }).catch((e) => e);
    expect(failureFrom(slow)).toEqual({ kind: "timeout" });
  });
});
