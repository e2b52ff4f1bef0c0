// The framework-free Fetch core, called directly with Request objects (no server).
import { RATE_LIMITED_BODY } from "@resil/http";
import { Limiter } from "@resil/limit";
import { afterEach, describe, expect, it } from "vitest";
import {
  fetchRateLimit,
  InvalidMiddlewareOptionError,
  LIMITER_UNAVAILABLE_BODY,
  type LimiterLike,
  MissingKeyError,
} from "../src/index.js";

const limiters: Limiter[] = [];
afterEach(async () => {
  for (const l of limiters.splice(0)) await l.shutdown();
});

function limiter() {
  const l = new Limiter({ service: "mw-fetch" });
  limiters.push(l);
  return l;
}

const ok = () => new Response("ok");
const request = (headers: Record<string, string> = {}) => new Request("http://local/x", { headers });

/** A limiter whose every call throws, as a closed or broken one would. */
const broken: LimiterLike = {
  tryCheck() {
    throw new Error("limiter down");
  },
  check: () => Promise.reject(new Error("limiter down")),
  acquire: () => Promise.reject(new Error("limiter down")),
};

describe("fetchRateLimit", () => {
  it("keys by the remote address it is given, adds headers to the handler's response, then answers 429", async () => {
    const limit = fetchRateLimit({ limiter: limiter(), family: "ip:", rateLimits: { requestsPerSecond: 2 } });
    const a = await limit(request(), ok, "192.0.2.1");
    expect([a.status, a.headers.get("x-ratelimit-remaining")]).toEqual([200, "1"]);
    await limit(request(), ok, "192.0.2.1");
    const denied = await limit(request(), ok, "192.0.2.1");
    expect(denied.status).toBe(429);
    expect(await denied.text()).toBe(RATE_LIMITED_BODY);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await limit(request(), ok, "192.0.2.2")).status).toBe(200);
  });

  it("copies a response whose headers are immutable", async () => {
    const limit = fetchRateLimit({ limiter: limiter(), family: "ip:", rateLimits: { requestsPerSecond: 2 } });
    const frozen = Response.redirect("http://local/elsewhere", 302); // immutable headers
    const r = await limit(request(), () => frozen, "192.0.2.1");
    expect([r.status, r.headers.get("location"), r.headers.get("x-ratelimit-limit")]).toEqual([
      302,
      "http://local/elsewhere",
      "2",
    ]);
  });

  it("uses X-Forwarded-For with trustProxy, and needs an address or a key otherwise", async () => {
    const l = limiter();
    const limit = fetchRateLimit({
      limiter: l,
      family: "ip:",
      trustProxy: 1,
      rateLimits: { requestsPerSecond: 2 },
    });
    await limit(request({ "x-forwarded-for": "2001:db8::1" }), ok);
    expect(l.hasPolicy("ip:2001:db8:0:0::/64")).toBe(true);
    const bare = fetchRateLimit({ limiter: l, family: "b:" });
    await expect(bare(request(), ok)).rejects.toBeInstanceOf(MissingKeyError);
  });

  it("fails open on a limiter error by default and tells onError (a throwing hook is ignored)", async () => {
    const seen: unknown[] = [];
    const limit = fetchRateLimit({
      limiter: broken,
      family: "ip:",
      onError: (error, subject) => {
        seen.push([(error as Error).message, subject]);
        throw new Error("hook bug");
      },
    });
    const r = await limit(request(), ok, "192.0.2.1");
    expect([r.status, r.headers.get("x-ratelimit-limit")]).toEqual([200, null]);
    expect(seen).toEqual([["limiter down", "ip:192.0.2.1"]]);
  });

  it("answers 503 on a limiter error with onLimiterError: deny", async () => {
    const limit = fetchRateLimit({ limiter: broken, family: "ip:", onLimiterError: "deny" });
    const r = await limit(request(), ok, "192.0.2.1");
    expect(r.status).toBe(503);
    expect(await r.text()).toBe(LIMITER_UNAVAILABLE_BODY);
  });

  it("holds a slot until the handler settles, also when it throws", async () => {
    const l = limiter();
    const limit = fetchRateLimit({ limiter: l, family: "ip:", maxConcurrent: 1 });
    let release!: () => void;
    const slow = limit(request(), () => new Promise<Response>((r) => (release = () => r(ok()))), "192.0.2.1");
    await new Promise((r) => setTimeout(r, 20));
    expect(l.active("ip:192.0.2.1")).toBe(1);
    const busy = await limit(request(), ok, "192.0.2.1");
    expect([busy.status, busy.headers.get("retry-after")]).toEqual([429, "1"]);
    release();
    expect((await slow).status).toBe(200);
    expect(l.active("ip:192.0.2.1")).toBe(0);
    await expect(
      limit(
        request(),
        () => {
          throw new Error("handler bug");
        },
        "192.0.2.1",
      ),
    ).rejects.toThrow("handler bug");
    expect(l.active("ip:192.0.2.1")).toBe(0);
  });

  it("rejects bad options naming the field", () => {
    const l = limiter();
    const bad = (o: object, field: string) => {
      const build = () => fetchRateLimit({ limiter: l, family: "ip:", ...o });
      expect(build).toThrow(InvalidMiddlewareOptionError);
      expect(build).toThrow(new RegExp(`^${field}:`));
    };
    bad({ family: "" }, "family");
    bad({ limiter: {} }, "limiter");
    bad({ headers: "x" }, "headers");
    bad({ body: "xml" }, "body");
    bad({ trustProxy: -1 }, "trustProxy");
    bad({ ipv6Subnet: 0 }, "ipv6Subnet");
    bad({ maxConcurrent: 1.5 }, "maxConcurrent");
    bad({ onLimiterError: "maybe" }, "onLimiterError");
    bad({ key: "ip" }, "key");
    expect(() =>
      fetchRateLimit({ limiter: broken, family: "ip:", rateLimits: { requestsPerSecond: 1 } }),
    ).toThrow(/^limiter: has no setFamily/);
  });
});
