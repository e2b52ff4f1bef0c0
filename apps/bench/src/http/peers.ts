import type { IncomingMessage, ServerResponse } from "node:http";
import { X_RATELIMIT_LIMIT, X_RATELIMIT_REMAINING, X_RATELIMIT_RESET } from "@resil/http";
import express from "express";
import { MemoryStore, rateLimit, type Store } from "express-rate-limit";
import type { Redis } from "ioredis";
import { type RedisReply, RedisStore } from "rate-limit-redis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from "rate-limiter-flexible";
import { ADMIT_LIMIT, BODY_429, httpKeys, type Scenario } from "./keys.js";
import type { Listener } from "./ours.js";

const HOUR_S = 3600;

/** express-rate-limit (X-RateLimit-* legacy headers), its MemoryStore or rate-limit-redis. */
export async function erl(s: Scenario, redis?: Redis): Promise<[Listener, () => Promise<void>]> {
  const store: Store =
    redis === undefined
      ? new MemoryStore()
      : new RedisStore({
          prefix: `erl-${s.tag}:`,
          sendCommand: (command: string, ...args: string[]) =>
            redis.call(command, ...args) as Promise<RedisReply>,
        });
  const app = express();
  app.use(
    rateLimit({
      windowMs: HOUR_S * 1000,
      limit: (req) => ((req.headers["x-key"] as string).startsWith("d") ? 1 : ADMIT_LIMIT),
      keyGenerator: (req) => req.headers["x-key"] as string,
      standardHeaders: false,
      legacyHeaders: true,
      message: JSON.parse(BODY_429),
      store,
      validate: false,
    }),
  );
  app.use((_req, res) => {
    res.send("ok");
  });
  await new Promise((r) => setTimeout(r, 50)); // the store's init (script loading) is not awaited by the middleware
  for (const k of httpKeys(s.keys, s.deny)) if (k.startsWith("d")) await store.increment(k);
  return [app, async () => store.shutdown?.()];
}

/**
 * The least a limiter with headers can do on node:http (a control, not a limiter): a Map of counts
 * per key, one add, the three X-RateLimit-* headers; the denied keys answered 429 from their count.
 */
export function nodeFloor(s: Scenario): Listener {
  const count = floorCounter(s);
  return (req, res) => {
    if (count(req, res)) res.end("ok");
  };
}

/**
 * The same least, as one Express middleware more before the handler (a control): what any rate-limit
 * middleware that sends the three headers costs Express before it limits anything.
 */
export function expressFloor(s: Scenario): Listener {
  const count = floorCounter(s);
  const app = express();
  app.use((req, res, next) => {
    if (count(req, res)) next();
  });
  app.use((_req, res) => {
    res.send("ok");
  });
  return app;
}

/** Counts the request's key and sets the three headers; answers a denied key 429 and returns false. */
function floorCounter(s: Scenario): (req: IncomingMessage, res: ServerResponse) => boolean {
  const counts = new Map<string, { n: number }>();
  for (const k of httpKeys(s.keys, s.deny)) counts.set(k, { n: k.startsWith("d") ? 1 : 0 });
  const reset = String(Math.ceil(Date.now() / 1000) + HOUR_S);
  return (req, res) => {
    const key = req.headers["x-key"] as string;
    const c = counts.get(key)!;
    const max = key.startsWith("d") ? 1 : ADMIT_LIMIT;
    c.n++;
    res.setHeader(X_RATELIMIT_LIMIT, String(max));
    res.setHeader(X_RATELIMIT_REMAINING, String(Math.max(0, max - c.n)));
    res.setHeader(X_RATELIMIT_RESET, reset);
    if (c.n <= max) return true;
    res.setHeader("retry-after", "3600");
    res.writeHead(429, { "content-type": "application/json" });
    res.end(BODY_429);
    return false;
  };
}

/** rate-limiter-flexible on node:http: one limiter for the admitted keys, one for the denied. */
export async function rlf(s: Scenario, redis?: Redis): Promise<[Listener, () => Promise<void>]> {
  const make = (points: number, duration: number, name: string): RateLimiterAbstract =>
    redis === undefined
      ? new RateLimiterMemory({ points, duration })
      : new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `rlf-${s.tag}-${name}` });
  const admit = make(ADMIT_LIMIT, 60, "a");
  const deny = make(1, HOUR_S, "d");
  const denied = httpKeys(s.keys, s.deny).filter((k) => k.startsWith("d"));
  for (let i = 0; i < denied.length; i += 2048)
    await Promise.all(denied.slice(i, i + 2048).map((k) => deny.consume(k)));
  const limit = (res: ServerResponse, r: RateLimiterRes, max: number) => {
    res.setHeader("x-ratelimit-limit", String(max));
    res.setHeader("x-ratelimit-remaining", String(r.remainingPoints));
    res.setHeader("x-ratelimit-reset", String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const key = req.headers["x-key"] as string;
    const limiter = key.startsWith("d") ? deny : admit;
    const max = key.startsWith("d") ? 1 : ADMIT_LIMIT;
    limiter.consume(key).then(
      (r) => {
        limit(res, r, max);
        res.end("ok");
      },
      (r: RateLimiterRes) => {
        limit(res, r, max);
        res.setHeader("retry-after", String(Math.max(1, Math.ceil(r.msBeforeNext / 1000))));
        res.writeHead(429, { "content-type": "application/json" });
        res.end(BODY_429);
      },
    );
  };
  return [listener, async () => {}];
}

/** The floors: a bare node:http handler and a bare Express app. */
export function bareNode(): Listener {
  return (_req, res) => res.end("ok");
}

/**
 * A bare Express app; with `extra` "layer", one no-op middleware more (what any middleware costs
 * before it does anything); with "headers", the three `X-RateLimit-*` headers ours sends by default,
 * fixed values set in the handler (what sending them costs, whoever computes them).
 */
export function bareExpress(extra?: "layer" | "headers"): Listener {
  const app = express();
  if (extra === "layer") app.use((_req, _res, next) => next());
  app.use((_req, res) => {
    if (extra === "headers") {
      res.setHeader(X_RATELIMIT_LIMIT, "2000000000");
      res.setHeader(X_RATELIMIT_REMAINING, "1999999999");
      res.setHeader(X_RATELIMIT_RESET, "1764900000");
    }
    res.send("ok");
  });
  return app;
}
