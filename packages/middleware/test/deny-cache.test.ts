import { afterEach, expect, it, vi } from "vitest";
import { DenyCache } from "../src/deny-cache.js";
import { fetchRateLimit, type LimiterDecision, type LimiterLike } from "../src/index.js";

afterEach(() => {
  vi.useRealTimers();
});

const DENY: LimiterDecision = {
  kind: "deny",
  headers: { limit: 5, remaining: 0, reset: 2_000_000_100, retryAfter: 3 },
  reason: "limited",
};

it("answers a remembered denial until its Retry-After, counting Retry-After down", () => {
  vi.useFakeTimers({ now: 1_000_000 });
  const cache = new DenyCache();
  cache.remember("ip:a", 1, { limit: 5, remaining: 0, reset: 2_000_000_100, retryAfter: 3 }, "limited");
  expect(cache.get("ip:a", 1)?.headers.retryAfter).toBe(3);
  vi.advanceTimersByTime(1500);
  expect(cache.get("ip:a", 1)?.headers).toEqual({
    limit: 5,
    remaining: 0,
    reset: 2_000_000_100,
    retryAfter: 2,
  });
  expect(cache.get("ip:a", 0)).toBeUndefined(); // a cheaper request asks the limiter
  expect(cache.get("ip:b", 1)).toBeUndefined();
  vi.advanceTimersByTime(1500);
  expect(cache.get("ip:a", 1)).toBeUndefined();
  expect(cache.size).toBe(0);
});

it("remembers a denial only up to the window's reset", () => {
  vi.useFakeTimers({ now: 1_000_000 });
  const cache = new DenyCache();
  cache.remember("ip:a", 1, { limit: 5, remaining: 0, reset: 1001, retryAfter: 2 }, "limited"); // reset in 1 s
  expect(cache.get("ip:a", 1)?.headers.retryAfter).toBe(1);
  vi.advanceTimersByTime(1000);
  expect(cache.get("ip:a", 1)).toBeUndefined();
  cache.remember("ip:b", 1, { limit: 5, remaining: 0, reset: 1000, retryAfter: 2 }, "limited"); // reset passed
  expect(cache.size).toBe(0);
});

it("does not remember a denial without Retry-After (a cost above the limit)", () => {
  const cache = new DenyCache();
  cache.remember("ip:a", 9, { limit: 5, remaining: 0, reset: 1 }, "costExceedsLimit");
  expect(cache.size).toBe(0);
});

it("sweeps expired denials once it grows", () => {
  vi.useFakeTimers({ now: 1_000_000 });
  const cache = new DenyCache();
  for (let i = 0; i < 4096; i++)
    cache.remember(`k${i}`, 1, { limit: 1, remaining: 0, reset: 2_000_000_000, retryAfter: 1 }, "limited");
  vi.advanceTimersByTime(1000);
  cache.remember("fresh", 1, { limit: 1, remaining: 0, reset: 2_000_000_000, retryAfter: 1 }, "limited");
  expect(cache.size).toBe(1);
});

it("calls the limiter once per denial period, every time with rememberDenials: false", async () => {
  let calls = 0;
  const limiter: LimiterLike = {
    tryCheck: () => {
      calls++;
      return DENY;
    },
    check: async () => DENY,
    acquire: async () => ({ kind: "unlimited" }),
  };
  const ok = () => new Response("ok");
  const remembering = fetchRateLimit({ limiter, family: "ip:" });
  for (let i = 0; i < 5; i++)
    expect((await remembering(new Request("http://x/"), ok, "192.0.2.1")).status).toBe(429);
  expect(calls).toBe(1);
  const asking = fetchRateLimit({ limiter, family: "ip:", rememberDenials: false });
  for (let i = 0; i < 5; i++) await asking(new Request("http://x/"), ok, "192.0.2.1");
  expect(calls).toBe(6);
});
