// Every middleware in a real listening server on 127.0.0.1, driven by real fetch requests.
import { RATE_LIMITED_BODY } from "@resil/http";
import { Limiter } from "@resil/limit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AppOptions, FRAMEWORKS, type Framework, type RunningApp, startApp } from "./helpers/apps.js";

const PER_MINUTE_3 = { algorithm: "fixed_window", requestsPerMinute: 3 } as const;

let running: RunningApp[] = [];
let limiters: Limiter[] = [];

// The limits are per minute (fixed windows): never start a test in the last 1.5 s of a minute.
beforeEach(async () => {
  const into = Date.now() % 60_000;
  if (into > 58_500) await new Promise((r) => setTimeout(r, 60_000 - into + 50));
});

afterEach(async () => {
  for (const app of running) await app.close();
  for (const l of limiters) await l.shutdown();
  running = [];
  limiters = [];
});

/** A store-less limiter (every key local-only: exact counts, no timing) with the family shim. */
function localLimiter(): Limiter {
  const l = new Limiter({ service: "mw-test" });
  limiters.push(l);
  return l;
}

async function start(framework: Framework, o: Partial<AppOptions> & { limiter: Limiter }) {
  const app = await startApp(framework, { family: "ip:", rateLimits: PER_MINUTE_3, ...o });
  running.push(app);
  return app;
}

async function get(app: RunningApp, path = "/ok", headers: Record<string, string> = {}) {
  const r = await fetch(app.url + path, { headers });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

async function until(what: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return what();
}

describe.each(FRAMEWORKS)("%s", (framework) => {
  it("sends X-RateLimit-* while admitted, then a 429 with Retry-After and the OpenAI body", async () => {
    const app = await start(framework, { limiter: localLimiter() });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await get(app));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers.slice(0, 3).map((a) => a.headers.get("x-ratelimit-remaining"))).toEqual(["2", "1", "0"]);
    expect(answers[0]!.headers.get("x-ratelimit-limit")).toBe("3");
    const reset = Number(answers[0]!.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    const denied = answers[4]!;
    expect(denied.body).toBe(RATE_LIMITED_BODY);
    expect(denied.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(denied.headers.get("ratelimit")).toBeNull();
    expect(app.started.get("/ok")).toBe(3);
  });

  it("sends the IETF fields (headers: both) and an RFC 9457 body (body: problem)", async () => {
    const app = await start(framework, { limiter: localLimiter(), headers: "both", body: "problem" });
    const first = await get(app);
    expect(first.headers.get("ratelimit")).toMatch(/^"minute";r=2;t=\d+$/);
    expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=3;w=60');
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    await get(app);
    await get(app);
    const denied = await get(app);
    expect(denied.status).toBe(429);
    expect(denied.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(denied.body)).toEqual({
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      detail: "Rate limit exceeded",
    });
    expect(denied.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=\d+$/);
    const ietfOnly = await start(framework, { limiter: localLimiter(), headers: "ietf" });
    const only = await get(ietfOnly);
    expect(only.headers.get("x-ratelimit-limit")).toBeNull();
    expect(only.headers.get("ratelimit-policy")).toBe('"minute";q=3;w=60');
    const none = await start(framework, { limiter: localLimiter(), headers: "none" });
    const bare = await get(none);
    expect([bare.headers.get("x-ratelimit-limit"), bare.headers.get("ratelimit")]).toEqual([null, null]);
  });

  it("skips by function and by allow list", async () => {
    const limiter = localLimiter();
    const app = await start(framework, { limiter, skipPath: "/health" });
    for (let i = 0; i < 3; i++) await get(app);
    const health = await get(app, "/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("x-ratelimit-limit")).toBeNull();
    expect((await get(app)).status).toBe(429);
    const allowed = await start(framework, { limiter: localLimiter(), allowList: ["127.0.0.1"] });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(allowed)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });

  it("keys by a key function and charges a cost function", async () => {
    const limiter = localLimiter();
    const app = await start(framework, { limiter, keyHeader: "x-api-key", costHeader: "x-cost" });
    expect((await get(app, "/ok", { "x-api-key": "a", "x-cost": "3" })).status).toBe(200);
    expect((await get(app, "/ok", { "x-api-key": "a" })).status).toBe(429);
    const b = await get(app, "/ok", { "x-api-key": "b", "x-cost": "2" });
    expect([b.status, b.headers.get("x-ratelimit-remaining")]).toEqual([200, "1"]);
    expect(limiter.hasPolicy("ip:a") && limiter.hasPolicy("ip:b")).toBe(true);
  });

  it("groups IPv6 clients by /64 (trustProxy: 1, X-Forwarded-For)", async () => {
    const limiter = localLimiter();
    const app = await start(framework, { limiter, trustProxy: 1 });
    const from = (ip: string) => get(app, "/ok", { "x-forwarded-for": `198.51.100.7, ${ip}` });
    expect((await from("2001:db8:1:2::1")).status).toBe(200);
    expect((await from("2001:db8:1:2:aaaa::9")).status).toBe(200);
    expect((await from("2001:0db8:0001:0002:ffff:1:2:3")).status).toBe(200);
    expect((await from("2001:db8:1:2::77")).status).toBe(429);
    expect((await from("2001:db8:1:3::1")).status).toBe(200);
    expect((await from("::ffff:10.0.0.1")).status).toBe(200);
    expect(limiter.hasPolicy("ip:2001:db8:1:2::/64")).toBe(true);
    expect(limiter.hasPolicy("ip:10.0.0.1")).toBe(true);
  });

  it("holds a slot per request and releases it on client abort and on handler error", async () => {
    const limiter = localLimiter();
    const app = await start(framework, { limiter, rateLimits: null, maxConcurrent: 1 });
    const subject = "ip:127.0.0.1";
    const abort = new AbortController();
    const slow = fetch(`${app.url}/slow`, { signal: abort.signal }).catch(() => "aborted");
    expect(await until(() => app.started.get("/slow") === 1)).toBe(true);
    expect(limiter.active(subject)).toBe(1);
    const busy = await get(app);
    expect([busy.status, busy.headers.get("retry-after")]).toEqual([429, "1"]);
    expect(JSON.parse(busy.body).error.code).toBe("concurrency_limit_exceeded");
    abort.abort();
    expect(await slow).toBe("aborted");
    expect(await until(() => limiter.active(subject) === 0)).toBe(true);
    expect((await get(app, "/boom")).status).toBe(500);
    expect(await until(() => limiter.active(subject) === 0)).toBe(true);
    expect((await get(app)).status).toBe(200);
    expect(limiter.active(subject)).toBe(0);
  });
});
