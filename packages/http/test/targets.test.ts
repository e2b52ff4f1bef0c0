// Extensions: Fetch Headers, Node ServerResponse and plain-record targets; Fetch Response helpers.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONCURRENCY_LIMITED_BODY,
  concurrencyLimited,
  concurrencyLimitedResponse,
  RATE_LIMITED_BODY,
  type RateLimitHeaders,
  rateLimited,
  rateLimitedResponse,
  sendRejection,
  writeHeaders,
} from "../src/index.js";

const deny: RateLimitHeaders = { limit: 60, remaining: 0, reset: 1_750_000_060, retryAfter: 12 };

describe("header targets", () => {
  it("a Fetch Headers: set replaces", () => {
    const h = new Headers({ "X-RateLimit-Limit": "5", "Retry-After": "99" });
    writeHeaders({ limit: 10, remaining: 3, reset: 1_750_000_000 }, h);
    expect(h.get("x-ratelimit-limit")).toBe("10");
    expect(h.get("x-ratelimit-remaining")).toBe("3");
    expect(h.get("x-ratelimit-reset")).toBe("1750000000");
    expect(h.get("retry-after")).toBe("99"); // untouched without retryAfter
    writeHeaders(deny, h);
    expect(h.get("retry-after")).toBe("12");
  });

  it("an immutable Headers (a fetched response's) throws its own TypeError", () => {
    const res = Response.error();
    expect(() => writeHeaders(deny, res.headers)).toThrow(TypeError);
  });

  it("a RangeError for a value that is not a non-negative safe integer, leaving the target untouched", () => {
    for (const bad of [
      { ...deny, limit: -1 },
      { ...deny, remaining: 1.5 },
      { ...deny, reset: Number.NaN },
      { ...deny, retryAfter: Number.POSITIVE_INFINITY },
      { ...deny, limit: 2 ** 53 },
    ]) {
      const out: Record<string, unknown> = {};
      expect(() => writeHeaders(bad, out)).toThrow(RangeError);
      expect(out).toEqual({});
    }
    expect(() => concurrencyLimited(Number.NaN)).toThrow(RangeError);
  });

  describe("a Node http.ServerResponse", () => {
    let base = "";
    const server = createServer((req, res: ServerResponse) => {
      if (req.url === "/allow") {
        res.setHeader("X-RateLimit-Limit", "stale");
        writeHeaders({ limit: 60, remaining: 59, reset: 1_750_000_060 }, res);
        res.end("ok");
      } else if (req.url === "/deny") {
        sendRejection(res, rateLimited(deny));
      } else if (req.url === "/late") {
        res.end("sent");
        try {
          writeHeaders(deny, res);
        } catch (e) {
          lateError = e as NodeJS.ErrnoException;
        }
      } else {
        sendRejection(res, concurrencyLimited(0));
      }
    });
    let lateError: NodeJS.ErrnoException | undefined;
    beforeAll(async () => {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it("setHeader replaces; the client sees the headers", async () => {
      const res = await fetch(`${base}/allow`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("60");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("59");
      expect(res.headers.get("retry-after")).toBeNull();
      await res.text();
    });

    it("sendRejection writes status, headers and the exact body bytes", async () => {
      const res = await fetch(`${base}/deny`);
      expect(res.status).toBe(429);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("retry-after")).toBe("12");
      expect(res.headers.get("x-ratelimit-reset")).toBe("1750000060");
      expect(await res.text()).toBe(RATE_LIMITED_BODY);
      const c = await fetch(`${base}/conc`);
      expect(c.status).toBe(429);
      expect(c.headers.get("retry-after")).toBe("1");
      expect(c.headers.get("x-ratelimit-limit")).toBeNull();
      expect(await c.text()).toBe(CONCURRENCY_LIMITED_BODY);
    });

    it("writing after the headers went out raises Node's ERR_HTTP_HEADERS_SENT", async () => {
      await (await fetch(`${base}/late`)).text();
      expect(lateError?.code).toBe("ERR_HTTP_HEADERS_SENT");
    });
  });
});

describe("Fetch Response helpers", () => {
  it("rateLimitedResponse", async () => {
    const res = rateLimitedResponse(deny);
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("retry-after")).toBe("12");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-reset")).toBe("1750000060");
    expect(await res.text()).toBe(RATE_LIMITED_BODY);
  });

  it("concurrencyLimitedResponse", async () => {
    const res = concurrencyLimitedResponse(0);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.has("x-ratelimit-limit")).toBe(false);
    expect(await res.text()).toBe(CONCURRENCY_LIMITED_BODY);
  });
});
