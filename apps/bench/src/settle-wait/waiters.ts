import { Limiter, Pacer, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import type { RedisServer } from "@resil/testkit";
import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import { RateLimiterQueue, RateLimiterRedis } from "rate-limiter-flexible";
import { quantile } from "../harness.js";
import { commandsProcessed } from "../redis.js";

/** One peer's wait path: `start()` queues one waiter and resolves when it is admitted. */
export interface WaitPeer {
  id: string;
  label: string;
  start(): Promise<unknown>;
  close(): Promise<void>;
}

export interface WaitRun {
  /** Milliseconds from queueing to admission, per waiter, in admission order. */
  waitsMs: number[];
  /** Waiters admitted per second, from the first queued to the last admitted. */
  throughput: number;
  /** Redis commands (INFO, scripts' inner commands included) per admitted waiter. */
  cmdsPerWaiter: number;
  /** Waiters that failed (rejected by the peer). */
  failed: number;
}

/**
 * Creates the peer 5 ms into a wall-clock second, so every peer's first window starts with the run
 * (resil's fixed windows are aligned to seconds; rate-limiter-flexible's start at the first request,
 * bottleneck's reservoir interval at its creation), queues `n` waiters at once and waits for them all.
 */
export async function runWaiters(
  make: () => Promise<WaitPeer>,
  n: number,
  admin: Redis,
): Promise<WaitRun & { peer: WaitPeer }> {
  await new Promise((r) => setTimeout(r, 1005 - (Date.now() % 1000)));
  const peer = await make();
  const c0 = await commandsProcessed(admin);
  const t0 = performance.now();
  const waitsMs: number[] = [];
  let failed = 0;
  let last = t0;
  const all: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    all.push(
      peer.start().then(
        () => {
          last = performance.now();
          waitsMs.push(last - t0);
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(all);
  const c1 = await commandsProcessed(admin);
  const admitted = waitsMs.length;
  return {
    peer,
    waitsMs,
    throughput: admitted / ((last - t0) / 1000),
    cmdsPerWaiter: admitted > 0 ? (c1 - c0 - 1) / admitted : Number.NaN,
    failed,
  };
}

export const p = (values: readonly number[], q: number) => quantile(values, q);

/** resil: a Limiter on Redis (fixed window of `limit` a second) and a Pacer in front of it. */
export async function resilPeer(server: RedisServer, limit: number, maxWaitMs: number): Promise<WaitPeer> {
  const client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
  const limiter = new Limiter(
    { service: "bench-wait", podId: "wait-0" },
    new RedisStore(new IoRedisExec(client)),
  );
  await limiter.start();
  limiter.setPolicy("upstream", { algorithm: "fixed_window", requestsPerSecond: limit });
  const pacer = new Pacer(limiter, { maxWaitMs });
  return {
    id: "resil-pacer",
    label: "resil Pacer.wait (Limiter on Redis)",
    start: () => pacer.wait("upstream"),
    async close() {
      await limiter.shutdown();
      client.disconnect();
    },
  };
}

/** rate-limiter-flexible: RateLimiterQueue over RateLimiterRedis (`limit` points a second). */
export function rlfQueuePeer(server: RedisServer, limit: number, n: number): WaitPeer {
  const client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
  const rlf = new RateLimiterRedis({ storeClient: client, keyPrefix: "rlfq", points: limit, duration: 1 });
  const queue = new RateLimiterQueue(rlf, { maxQueueSize: n });
  return {
    id: "rlf-queue",
    label: "RateLimiterQueue over RateLimiterRedis",
    start: () => queue.removeTokens(1),
    async close() {
      client.disconnect();
    },
  };
}

/**
 * bottleneck clustered on Redis (`datastore: "ioredis"`): a reservoir of `limit` refilled every second.
 * Clustered, it looks at a refilled reservoir on its heartbeat: every 5 s by default, or `heartbeatMs`.
 */
export async function bottleneckPeer(
  server: RedisServer,
  limit: number,
  heartbeatMs?: number,
): Promise<WaitPeer> {
  const limiter = new Bottleneck({
    id: `bench-wait-${heartbeatMs ?? "default"}`,
    datastore: "ioredis",
    clearDatastore: true,
    clientOptions: { host: server.host, port: server.port },
    Redis,
    reservoir: limit,
    reservoirRefreshAmount: limit,
    reservoirRefreshInterval: 1000,
    ...(heartbeatMs === undefined ? {} : { heartbeatInterval: heartbeatMs }),
  });
  await limiter.ready();
  return {
    id: heartbeatMs === undefined ? "bottleneck-redis" : "bottleneck-redis-hb",
    label:
      heartbeatMs === undefined
        ? "bottleneck schedule (Redis clustering, ioredis)"
        : `bottleneck schedule (Redis clustering, heartbeatInterval ${heartbeatMs} ms)`,
    start: () => limiter.schedule(() => Promise.resolve()),
    async close() {
      await limiter.disconnect(true);
    },
  };
}
