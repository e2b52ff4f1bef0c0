import type { IncomingMessage, ServerResponse } from "node:http";
import {
  Limiter,
  type LimiterEvent,
  MemoryStore,
  OUTCOMES,
  type RateLimitConfig,
  type RedisCommand,
  type RedisExec,
  RedisStore,
  systemClock,
} from "@resil/limit";
import { nodeRateLimit } from "@resil/middleware";
import { expressRateLimit } from "@resil/middleware/express";
import { IoRedisExec } from "@resil/store-ioredis";
import express from "express";
import type { Redis } from "ioredis";
import { ADMIT_LIMIT, httpKeys, type Scenario } from "./keys.js";

export type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The policy of the admitted keys (`k:a…`): a limit never reached. */
export const ADMIT: RateLimitConfig = {
  algorithm: "sliding_window",
  requestsPerMinute: ADMIT_LIMIT,
  localAllowance: 0.8,
};
/**
 * The policy of the denied keys (`k:d…`): one an hour, spent in the setup. A token bucket, so the key
 * stays denied for an hour from its spend, as the peers' windows do (an hour window aligned to the
 * clock rolled over in a run that crossed the hour, and its rows measured 0 % denied).
 */
export const DENY: RateLimitConfig = { algorithm: "token_bucket", requestsPerHour: 1, burstSize: 1 };

type WithFamilies = Limiter & { setFamily?(prefix: string, rateLimits?: RateLimitConfig | null): void };

/** A started limiter with the scenario's policies: by family when the Limiter has them, else per subject. */
/** Where the limiter keeps its counts: none (every key local-only), a MemoryStore, or Redis. */
export type StoreKind = "local" | "memory" | Redis;

/** The limiter of the scenario being served (for the case's sync figures), if ours. */
export let currentLimiter: Limiter | undefined;

/** What the limiter did so far: rounds, key-syncs, failed rounds and decisions by outcome. */
export function limiterStats(): Record<string, number> | undefined {
  const l = currentLimiter;
  if (l === undefined) return undefined;
  const exchange = (l as unknown as { exchange?: { keySyncs?: number } }).exchange;
  const stats: Record<string, number> = {
    rounds: l.syncRounds(),
    keySyncs: exchange?.keySyncs ?? 0,
    failures: l.syncFailures(),
  };
  for (const o of OUTCOMES) stats[o] = l.outcomeCount(o);
  return stats;
}

async function limiterFor(s: Scenario, kind: StoreKind): Promise<Limiter> {
  const store =
    kind === "local"
      ? undefined
      : kind === "memory"
        ? new MemoryStore(systemClock)
        : new RedisStore(
            process.env.BENCH_HTTP_EVENTS ? timedExec(new IoRedisExec(kind), s) : new IoRedisExec(kind),
          );
  const onEvent = process.env.BENCH_HTTP_EVENTS ? logOutage(s, kind) : undefined;
  const limiter: WithFamilies = new Limiter({ service: `bench-http-${s.tag}`, onEvent }, store);
  await limiter.start();
  const subjects = httpKeys(s.keys, s.deny).map((k) => `k:${k}`);
  if (typeof limiter.setFamily === "function") {
    limiter.setFamily("k:a", ADMIT);
    limiter.setFamily("k:d", DENY);
  } else {
    for (const subject of subjects) limiter.setPolicy(subject, subject.startsWith("k:d") ? DENY : ADMIT);
  }
  // Spend the denied keys' one request and give the admitted ones credit, before the clock runs.
  for (let pass = 0; pass < 3; pass++) {
    for (let i = 0; i < subjects.length; i += 2048) {
      await Promise.all(subjects.slice(i, i + 2048).map((k) => limiter.check(k)));
    }
  }
  if (process.env.BENCH_HTTP_NO_DRAIN === undefined)
    await drained(limiter, s.quietMs ?? 2_000, s.awaitPushes ?? true);
  currentLimiter = limiter;
  return limiter;
}

/**
 * Waits (at most 60 s) until the setup's admits are pushed: no key holds an admit the store has not
 * seen, and no key-sync for `quietMs`. Otherwise the run measures the setup's backlog (100,000 keys
 * pushed behind the requests: 38.8 key-syncs per request at 179 req/s, measured), not the requests.
 * Admits from credit far below its limit wait up to 44.9 s for their push (idle credit, a minute window).
 */
async function drained(limiter: Limiter, quietMs: number, awaitPushes: boolean): Promise<void> {
  const inside = limiter as unknown as {
    exchange?: { keySyncs?: number };
    subjects?: { rates?: Map<string, { localOnly: boolean; hasUnpushed(): boolean }> };
  };
  const syncs = () => inside.exchange?.keySyncs ?? 0;
  const unpushed = () => {
    if (!awaitPushes) return false;
    // a local-only key (no store) counts its admits itself
    for (const k of inside.subjects?.rates?.values() ?? []) if (!k.localOnly && k.hasUnpushed()) return true;
    return false;
  };
  const until = Date.now() + 60_000;
  let last = -1;
  let quietSince = Date.now();
  while (Date.now() < until && (Date.now() - quietSince < quietMs || unpushed())) {
    if (syncs() !== last) quietSince = Date.now();
    last = syncs();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The event loop's lags over the last half second (one watch per process, started on first use). */
let lags: { at: number; ms: number }[] | undefined;

function watchLoop(): { at: number; ms: number }[] {
  const beatMs = 10;
  const seen: { at: number; ms: number }[] = [];
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    seen.push({ at: now, ms: now - last - beatMs });
    last = now;
    while (seen.length > 0 && seen[0]!.at < now - 500) seen.shift();
  }, beatMs).unref();
  return seen;
}

/**
 * BENCH_HTTP_EVENTS=1 (diagnostics): each store outage or recovery the limiter reports goes to stderr
 * with the longest event-loop lag of the half second before it, so a stall this process caused by not
 * running (the reply waiting unread) shows as a lag about as long as the stall.
 */
function logOutage(s: Scenario, kind: StoreKind): (e: LimiterEvent) => void {
  lags ??= watchLoop();
  const seen = lags;
  const store = typeof kind === "string" ? kind : "redis";
  return (e) => {
    if (e.type === "overrun") return;
    const lag = Math.max(0, ...seen.map((l) => l.ms));
    const what =
      e.type === "storeRecovered"
        ? `recovered after ${e.outageMs.toFixed(0)} ms`
        : `failing (${e.cause}${e.error instanceof Error ? `: ${e.error.name}: ${e.error.message}` : ""})`;
    process.stderr.write(
      `${new Date().toISOString().slice(11, 23)} [${s.tag}, ${store}] store ${what}; loop lag up to ${lag.toFixed(0)} ms in the 0.5 s before\n`,
    );
  };
}

/**
 * BENCH_HTTP_EVENTS=1: a pipeline slower than SLOW_PIPELINE_MS goes to stderr with its script calls and
 * keys, and what this connection had in flight when it was sent (a round waits behind those).
 */
const SLOW_PIPELINE_MS = 200;

function timedExec(exec: RedisExec, s: Scenario): RedisExec {
  let callsInFlight = 0;
  let keysInFlight = 0;
  const keysOf = (c: RedisCommand) => (c.args[0] === "EVALSHA" ? Number(c.args[2]) : 0);
  return {
    singleNode: exec.singleNode,
    async pipeline(commands) {
      const keys = commands.reduce((n, c) => n + keysOf(c), 0);
      const ahead = `${callsInFlight} commands, ${keysInFlight} keys`;
      callsInFlight += commands.length;
      keysInFlight += keys;
      const t0 = performance.now();
      try {
        return await exec.pipeline(commands);
      } finally {
        callsInFlight -= commands.length;
        keysInFlight -= keys;
        const ms = performance.now() - t0;
        if (ms > SLOW_PIPELINE_MS) {
          const lag = Math.max(0, ...(lags ?? []).map((l) => l.ms));
          process.stderr.write(
            `${new Date().toISOString().slice(11, 23)} [${s.tag}] pipeline of ${commands.length} commands, ${keys} keys took ${ms.toFixed(0)} ms; in flight before it: ${ahead}; loop lag up to ${lag.toFixed(0)} ms\n`,
          );
        }
      }
    },
  };
}

/** Shuts the scenario's limiter down and lets it go (the next scenario's server keeps no old keys). */
async function closeLimiter(limiter: Limiter): Promise<void> {
  if (currentLimiter === limiter) currentLimiter = undefined;
  await limiter.shutdown();
}

const keyOf = (req: IncomingMessage) => req.headers["x-key"] as string;
const ok = (_req: IncomingMessage, res: ServerResponse) => res.end("ok");

/** Ours through the node:http core: `wrap` around a bare handler. */
export async function oursNode(s: Scenario, kind: StoreKind): Promise<[Listener, () => Promise<void>]> {
  const limiter = await limiterFor(s, kind);
  const limit = nodeRateLimit({ limiter, family: "k:", key: keyOf });
  return [limit.wrap(ok), () => closeLimiter(limiter)];
}

/** Ours through the Express middleware. */
export async function oursExpress(s: Scenario, kind: StoreKind): Promise<[Listener, () => Promise<void>]> {
  const limiter = await limiterFor(s, kind);
  const app = express();
  app.use(expressRateLimit({ limiter, family: "k:", key: (req) => req.headers["x-key"] as string }));
  app.use((_req, res) => {
    res.send("ok");
  });
  return [app, () => closeLimiter(limiter)];
}
