import { Limiter, type RateAlgorithm, type RedisExec, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import type { RedisServer } from "@resil/testkit";
import type { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { median, statsRow, unavailableRow } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import { commandsProcessed, connect, disconnect, privateRedis } from "../redis.js";
import { redisLimiter } from "../resil-setup.js";
import type { BenchCase, Row, RunOptions } from "../types.js";

const KEYS = 100;
/** 1x: 1 000 requests per second over the 100 keys (10 per key). */
const BASE_RATE = 1_000;
const LEVELS = [1, 10, 100] as const;
/** The overloaded case: one key limited to 1 000 req/s (sliding window), offered 10x and 100x that. */
const HOT_KEY = "hot-overloaded";
const HOT_LIMIT = 1_000;
const OVER_LEVELS = [10, 100] as const;
// Requests in flight above this are not offered (a peer that cannot keep up is not queued without end).
const MAX_IN_FLIGHT = 1_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Counter {
  /** Commands sent (every command of a pipeline counts). */
  sent: number;
  /** Round trips: pipelines, or single commands. */
  trips: number;
}

/**
 * Counts every command the client sends (pipelines included: ioredis sends each through sendCommand);
 * with `perCommandTrips`, each command is also its own round trip (a peer that does not pipeline).
 */
function countCommands(
  client: Redis,
  perCommandTrips: boolean,
  counter: Counter = { sent: 0, trips: 0 },
): Counter {
  const original = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<Redis["sendCommand"]>) => {
    counter.sent++;
    if (perCommandTrips) counter.trips++;
    return original(...args);
  }) as Redis["sendCommand"];
  return counter;
}

/** The RedisExec resil's store runs on, counting each pipeline as one round trip. */
function countedExec(exec: RedisExec, counter: Counter): RedisExec {
  return {
    pipeline(commands) {
      counter.trips++;
      return exec.pipeline(commands);
    },
  };
}

type Decide = (key: string) => Promise<unknown> | undefined;

interface Window {
  clientCmds: number;
  trips: number;
  serverCmds: number;
  done: number;
  offered: number;
  seconds: number;
}

/** Offers `rate` requests per second, paced every millisecond, for `ms`; async decisions run concurrently. */
async function drive(rate: number, ms: number, keys: readonly string[], decide: Decide) {
  let issued = 0;
  let done = 0;
  let inFlight = 0;
  let next = 0;
  const start = performance.now();
  for (let now = start; now - start < ms; now = performance.now()) {
    const due = Math.floor((rate * (now - start)) / 1000);
    for (; issued < due; issued++) {
      if (inFlight >= MAX_IN_FLIGHT) continue;
      const k = keys[next]!;
      next = next + 1 === keys.length ? 0 : next + 1;
      const pending = decide(k);
      if (pending === undefined) {
        done++;
        continue;
      }
      inFlight++;
      pending.then(
        () => {
          inFlight--;
          done++;
        },
        () => {
          inFlight--;
          done++;
        },
      );
    }
    await sleep(1);
  }
  while (inFlight > 0) await sleep(1);
  return { offered: issued, done };
}

async function level(
  rate: number,
  opts: RunOptions,
  keys: readonly string[],
  decide: Decide,
  counter: Counter,
  admin: Redis,
): Promise<Window[]> {
  const windowMs = opts.smoke ? 200 : 1_000;
  await drive(rate, opts.smoke ? 200 : 1_000, keys, decide); // warm-up at this rate
  const windows: Window[] = [];
  for (let i = 0; i < 3; i++) {
    const c0 = counter.sent;
    const r0 = counter.trips;
    const s0 = await commandsProcessed(admin);
    const t0 = performance.now();
    const { offered, done } = await drive(rate, windowMs, keys, decide);
    const seconds = (performance.now() - t0) / 1000;
    const s1 = await commandsProcessed(admin);
    // The INFO that read s0 is counted in the delta: take it out.
    windows.push({
      clientCmds: counter.sent - c0,
      trips: counter.trips - r0,
      serverCmds: s1 - s0 - 1,
      done,
      offered,
      seconds,
    });
  }
  return windows;
}

function levelRow(id: string, label: string, ws: readonly Window[], rate: number): Row {
  const perSec = ws.map((w) => w.clientCmds / w.seconds);
  const server = median(ws.map((w) => w.serverCmds / w.seconds));
  const achieved = median(ws.map((w) => w.done / w.seconds));
  const trips = median(ws.map((w) => w.trips / w.seconds));
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const note = `${fmt(trips)} round trips/s; ${fmt(achieved)} req/s done of ${fmt(rate)} offered; server ran ${fmt(server)} cmds/s incl. commands inside scripts`;
  return statsRow(id, label, "cmds/s", perSec, note);
}

async function runLevels(
  prefix: string,
  label: string,
  opts: RunOptions,
  keys: readonly string[],
  decide: Decide,
  counter: Counter,
  admin: Redis,
  levels: readonly number[] = LEVELS,
  base = BASE_RATE,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const x of levels) {
    const rate = base * x;
    rows.push(
      levelRow(
        `${prefix}-${x}x`,
        `${label}, ${x}x`,
        await level(rate, opts, keys, decide, counter, admin),
        rate,
      ),
    );
  }
  return rows;
}

function unavailable(prefix: string, label: string, why: string, levels: readonly number[] = LEVELS): Row[] {
  return levels.map((x) => unavailableRow(`${prefix}-${x}x`, `${label}, ${x}x`, "cmds/s", why));
}

/** Several replicas sharing one small limit: commands per replica must not grow with the offered load. */
const SHARED_REPLICAS = 4;
const SHARED_LIMIT = 50;
const SHARED_ALGORITHMS: readonly RateAlgorithm[] = ["sliding_window", "token_bucket", "fixed_window"];

/** Per replica: the commands and round trips of all replicas divided by their count. */
function perReplica(ws: readonly Window[], replicas: number): Window[] {
  return ws.map((w) => ({ ...w, clientCmds: w.clientCmds / replicas, trips: w.trips / replicas }));
}

/** 4 replicas in this process, each on its own client, one key of 50/s per algorithm, offered 1x to 100x. */
async function sharedLimitRows(server: RedisServer, admin: Redis, opts: RunOptions): Promise<Row[]> {
  const rows: Row[] = [];
  for (const algorithm of SHARED_ALGORITHMS) {
    const counter: Counter = { sent: 0, trips: 0 };
    const clients: Redis[] = [];
    const limiters: Limiter[] = [];
    try {
      for (let i = 0; i < SHARED_REPLICAS; i++) {
        const client = await connect(server);
        clients.push(client);
        countCommands(client, false, counter);
        const store = new RedisStore(countedExec(new IoRedisExec(client), counter));
        const l = new Limiter({ service: `shared-${algorithm}`, podId: `bench-${i}` }, store);
        await l.start();
        l.setPolicy("shared", { algorithm, requestsPerSecond: SHARED_LIMIT });
        limiters.push(l);
      }
      let next = 0;
      const decide: Decide = () => {
        const l = limiters[next]!;
        next = next + 1 === limiters.length ? 0 : next + 1;
        return l.tryCheck("shared") === undefined ? l.check("shared") : undefined;
      };
      for (const x of LEVELS) {
        const rate = SHARED_LIMIT * x;
        const ws = await level(rate, opts, ["shared"], decide, counter, admin);
        rows.push(
          levelRow(
            `resil-shared-${algorithm}-${x}x`,
            `resil, ${SHARED_REPLICAS} replicas sharing ${SHARED_LIMIT}/s (${algorithm}), per replica, ${x}x`,
            perReplica(ws, SHARED_REPLICAS),
            rate,
          ),
        );
      }
    } finally {
      await Promise.all(limiters.map((l) => l.shutdown()));
      for (const c of clients) await disconnect(c);
    }
  }
  return rows;
}

/** `BENCH_REDIS_COMMANDS=shared` runs only the rows of replicas sharing one key (a shorter hold of the lock). */
function sharedOnly(): boolean {
  return process.env.BENCH_REDIS_COMMANDS === "shared";
}

const RESIL = "resil Limiter (RedisStore via IoRedisExec)";
const RLF = "RateLimiterRedis, 1 window";
const RESIL_OVER = `resil, one key over its ${HOT_LIMIT.toLocaleString("en-US")}/s limit`;
const RLF_OVER = `RateLimiterRedis, one key over its ${HOT_LIMIT.toLocaleString("en-US")}/s limit`;

export const redisCommands: BenchCase = {
  name: "redis-commands",
  title: "Redis commands per second per replica",
  description: `commands one replica sends to Redis at 1x, 10x and 100x of ${BASE_RATE.toLocaleString("en-US")} req/s over ${KEYS} keys (limits never reached), then with one key offered 10x and 100x its ${HOT_LIMIT.toLocaleString("en-US")}/s sliding-window limit, then ${SHARED_REPLICAS} replicas sharing one ${SHARED_LIMIT}/s key (each algorithm) offered 1x to 100x`,
  async run(opts) {
    const server: RedisServer | string = await privateRedis();
    if (typeof server === "string")
      return [
        ...unavailable("resil", RESIL, server),
        ...unavailable("rlf-redis", RLF, server),
        ...unavailable("resil-over", RESIL_OVER, server, OVER_LEVELS),
        ...SHARED_ALGORITHMS.flatMap((a) =>
          unavailable(
            `resil-shared-${a}`,
            `resil, ${SHARED_REPLICAS} replicas sharing ${SHARED_LIMIT}/s (${a})`,
            server,
          ),
        ),
        ...unavailable("rlf-redis-over", RLF_OVER, server, OVER_LEVELS),
      ];
    const keys = makeKeys(KEYS);
    const admin = await connect(server);
    const clients: Redis[] = [];
    if (sharedOnly()) {
      try {
        return await sharedLimitRows(server, admin, opts);
      } finally {
        await disconnect(admin);
        await server.stop();
      }
    }
    try {
      const rows: Row[] = [];
      // resil: one client of its own, so only its commands are counted.
      const resilClient = await connect(server);
      clients.push(resilClient);
      const resilCounter = countCommands(resilClient, false);
      const resil = await redisLimiter(keys, countedExec(new IoRedisExec(resilClient), resilCounter));
      const l = resil.limiter;
      const decide: Decide = (k) => (l.tryCheck(k) === undefined ? l.check(k) : undefined);
      try {
        rows.push(...(await runLevels("resil", RESIL, opts, keys, decide, resilCounter, admin)));
        l.setPolicy(HOT_KEY, { algorithm: "sliding_window", requestsPerSecond: HOT_LIMIT });
        rows.push(
          ...(await runLevels(
            "resil-over",
            RESIL_OVER,
            opts,
            [HOT_KEY],
            decide,
            resilCounter,
            admin,
            OVER_LEVELS,
            HOT_LIMIT,
          )),
        );
      } finally {
        await resil.close();
      }
      rows.push(...(await sharedLimitRows(server, admin, opts)));
      const client = await connect(server);
      clients.push(client);
      const counter = countCommands(client, true);
      const rlf = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: "rlfc",
        points: HUGE_LIMIT,
        duration: 1,
      });
      rows.push(...(await runLevels("rlf-redis", RLF, opts, keys, (k) => rlf.consume(k), counter, admin)));
      const rlfHot = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: "rlfo",
        points: HOT_LIMIT,
        duration: 1,
      });
      const consumeHot: Decide = (k) => rlfHot.consume(k);
      rows.push(
        ...(await runLevels(
          "rlf-redis-over",
          RLF_OVER,
          opts,
          [HOT_KEY],
          consumeHot,
          counter,
          admin,
          OVER_LEVELS,
          HOT_LIMIT,
        )),
      );
      return rows;
    } finally {
      for (const c of clients) await disconnect(c);
      await disconnect(admin);
      await server.stop();
    }
  },
};
