import { Limiter, MemoryStore, RedisStore, systemClock } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import type { RedisServer } from "@resil/testkit";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { measure, measureOptions, median, statsRow, unavailableRow, type Variant } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import { connect, disconnect, privateRedis } from "../redis.js";
import { resilCharge, resilRefund, rlfAdjust } from "../settle-wait/settle-calls.js";
import { commandsPerSecond } from "../settle-wait/settle-traffic.js";
import {
  bottleneckPeer,
  p,
  resilPeer,
  rlfQueuePeer,
  runWaiters,
  type WaitPeer,
} from "../settle-wait/waiters.js";
import type { BenchCase, Row, RunOptions } from "../types.js";

/** The wait path: N waiters queued at once on one limit of WAIT_LIMIT a second (fixed window). */
const WAIT_LIMIT = 100;
const KEY = "settle";
/** bottleneck's clustered heartbeat tuned down from its 5 s default (its local default is 250 ms). */
const BOTTLENECK_HEARTBEAT_MS = 100;

async function settleRows(opts: RunOptions, server: RedisServer | string, clients: Redis[]): Promise<Row[]> {
  const policy = { algorithm: "fixed_window" as const, requestsPerSecond: HUGE_LIMIT };
  const memory = new Limiter({ service: "settle-mem", podId: "s-0" }, new MemoryStore(systemClock));
  await memory.start();
  memory.setPolicy(KEY, policy);
  await memory.check(KEY);
  const closers: Array<() => Promise<void>> = [() => memory.shutdown()];
  const variants: Array<Variant | { id: string; label: string; unavailable: string }> = [
    resilCharge("resil-settle-charge", "resil settle(+1), MemoryStore", memory, KEY),
    resilRefund("resil-settle-refund", "resil settle(-1), MemoryStore", memory, KEY),
  ];
  const rlfMemory = new RateLimiterMemory({ points: HUGE_LIMIT, duration: 1 });
  await rlfMemory.consume(KEY);
  variants.push(
    rlfAdjust("rlf-memory-penalty", "RateLimiterMemory penalty(1)", rlfMemory, KEY, "penalty"),
    rlfAdjust("rlf-memory-reward", "RateLimiterMemory reward(1)", rlfMemory, KEY, "reward"),
  );
  if (typeof server === "string") {
    for (const [id, label] of [
      ["resil-redis-settle-charge", "resil settle(+1), RedisStore"],
      ["resil-redis-settle-refund", "resil settle(-1), RedisStore"],
      ["rlf-redis-penalty", "RateLimiterRedis penalty(1)"],
      ["rlf-redis-reward", "RateLimiterRedis reward(1)"],
    ] as const)
      variants.push({ id, label, unavailable: server });
  } else {
    const client = await connect(server);
    clients.push(client);
    const onRedis = new Limiter(
      { service: "settle-redis", podId: "s-0" },
      new RedisStore(new IoRedisExec(client)),
    );
    await onRedis.start();
    onRedis.setPolicy(KEY, policy);
    await onRedis.check(KEY);
    closers.push(() => onRedis.shutdown());
    const rlfRedis = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: "rlfs",
      points: HUGE_LIMIT,
      duration: 1,
    });
    await rlfRedis.consume(KEY);
    variants.push(
      resilCharge("resil-redis-settle-charge", "resil settle(+1), RedisStore", onRedis, KEY),
      resilRefund("resil-redis-settle-refund", "resil settle(-1), RedisStore", onRedis, KEY),
      rlfAdjust("rlf-redis-penalty", "RateLimiterRedis penalty(1)", rlfRedis, KEY, "penalty"),
      rlfAdjust("rlf-redis-reward", "RateLimiterRedis reward(1)", rlfRedis, KEY, "reward"),
    );
  }
  try {
    return await measure(variants, measureOptions(opts));
  } finally {
    for (const close of closers) await close();
  }
}

async function waitRows(opts: RunOptions, server: RedisServer, admin: Redis): Promise<Row[]> {
  const n = opts.smoke ? 20 : 5 * WAIT_LIMIT;
  const rounds = opts.smoke ? 1 : 2;
  const maxWaitMs = 120_000;
  const makers: Array<() => Promise<WaitPeer>> = [
    () => resilPeer(server, WAIT_LIMIT, maxWaitMs),
    async () => rlfQueuePeer(server, WAIT_LIMIT, n),
    () => bottleneckPeer(server, WAIT_LIMIT),
    () => bottleneckPeer(server, WAIT_LIMIT, BOTTLENECK_HEARTBEAT_MS),
  ];
  const results = new Map<
    string,
    { label: string; waits: number[]; tput: number[]; cmds: number[]; failed: number }
  >();
  for (let r = 0; r < rounds; r++) {
    for (const make of makers) {
      await admin.flushdb();
      const run = await runWaiters(make, n, admin);
      const peer = run.peer;
      await peer.close();
      const acc = results.get(peer.id) ?? { label: peer.label, waits: [], tput: [], cmds: [], failed: 0 };
      acc.waits.push(...run.waitsMs);
      acc.tput.push(run.throughput);
      acc.cmds.push(run.cmdsPerWaiter);
      acc.failed += run.failed;
      results.set(peer.id, acc);
    }
  }
  const rows: Row[] = [];
  const ideal = n / (Math.ceil(n / WAIT_LIMIT) - 1 || 1);
  const what = `${n} waiters queued at once, ${WAIT_LIMIT}/s fixed window, ${rounds} round(s); a fixed window at its limit admits ${Math.round(ideal)}/s here`;
  for (const [id, acc] of results) {
    const failed = acc.failed > 0 ? `; ${acc.failed} waiters failed` : "";
    rows.push(
      statsRow(
        `${id}-throughput`,
        `${acc.label}: admitted per second`,
        "req/s",
        acc.tput,
        `${what}${failed}`,
      ),
    );
    for (const [tag, q] of [
      ["p50", 0.5],
      ["p99", 0.99],
      ["max", 1],
    ] as const)
      rows.push(
        statsRow(`${id}-wait-${tag}`, `${acc.label}: time to admit, ${tag}`, "ms", [p(acc.waits, q)]),
      );
    rows.push(
      statsRow(`${id}-cmds`, `${acc.label}: Redis commands per admitted waiter`, "per request", [
        median(acc.cmds),
      ]),
    );
  }
  return rows;
}

async function trafficRows(opts: RunOptions, server: RedisServer, admin: Redis): Promise<Row[]> {
  const traffic = { keys: makeKeys(100, "t"), rate: 1_000, estimate: 100, limit: 2_000 };
  const warm = opts.smoke ? 200 : 1_000;
  const ms = opts.smoke ? 300 : 2_000;
  const off: number[] = [];
  const on: number[] = [];
  let notes = "";
  for (let i = 0; i < (opts.smoke ? 1 : 3); i++) {
    const a = await commandsPerSecond(server, admin, traffic, false, warm, ms);
    const b = await commandsPerSecond(server, admin, traffic, true, warm, ms);
    off.push(a.cmdsPerSec);
    on.push(b.cmdsPerSec);
    const k = (x: number) => Math.round(x).toLocaleString("en-US");
    notes = `last window: ${k(a.unitsPerSec)} units/s admitted and ${k(a.roundsPerSec)} sync round trips/s (${k(a.sentPerSec)} commands sent/s) up front (${a.admitted} requests); ${k(b.unitsPerSec)} units/s and ${k(b.roundsPerSec)} round trips/s (${k(b.sentPerSec)} commands sent/s) with settle (${b.admitted} requests, ${b.settled} settled)`;
  }
  const what = "1 000 req/s over 100 keys, 2 000 units/s per key (sliding window), costs 50..200 units";
  return [
    statsRow("traffic-no-settle", `resil replica, cost known up front: ${what}`, "cmds/s", off, notes),
    statsRow(
      "traffic-settle",
      "resil replica, admitted on 100 units then settled to the same cost",
      "cmds/s",
      on,
    ),
  ];
}

export const settleWait: BenchCase = {
  name: "settle-wait",
  title: "Reserve then settle, and waiting for capacity",
  description: `ns per settle (charge, refund) vs rate-limiter-flexible penalty/reward; N waiters on one ${WAIT_LIMIT}/s limit through resil's Pacer vs RateLimiterQueue and bottleneck (Redis clustering), on one private Redis; Redis commands per second of a replica with and without settle`,
  async run(opts) {
    const server = await privateRedis();
    const clients: Redis[] = [];
    try {
      const rows = await settleRows(opts, server, clients);
      if (typeof server === "string") {
        rows.push(
          unavailableRow("resil-pacer-throughput", "resil Pacer.wait: admitted per second", "req/s", server),
        );
        rows.push(unavailableRow("traffic-settle", "resil replica with settle", "cmds/s", server));
        return rows;
      }
      const admin = await connect(server);
      clients.push(admin);
      rows.push(...(await waitRows(opts, server, admin)));
      rows.push(...(await trafficRows(opts, server, admin)));
      return rows;
    } finally {
      for (const c of clients) await disconnect(c);
      if (typeof server !== "string") await server.stop();
    }
  },
};
