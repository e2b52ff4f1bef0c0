import { Limiter, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import type { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { statsRow, unavailableRow } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import { connect, disconnect, privateRedis } from "../redis.js";
import type { BenchCase, Row } from "../types.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const KEYS = 10_000;
const RATES = [1, 10] as const;

/** Redis's own counters: commands run (scripts' inner commands included) and CPU seconds used. */
async function serverStats(admin: Redis): Promise<{ cmds: number; cpu: number }> {
  const info = await admin.info();
  const num = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return { cmds: num("total_commands_processed"), cpu: num("used_cpu_sys") + num("used_cpu_user") };
}

type Decide = (key: string) => Promise<unknown> | undefined;

/** Offers `perKey` requests a second on each key, paced every 10 ms, for `ms`; returns requests decided. */
async function offer(keys: readonly string[], perKey: number, ms: number, decide: Decide): Promise<number> {
  const rate = keys.length * perKey;
  let issued = 0;
  let next = 0;
  let inFlight = 0;
  const start = performance.now();
  for (let now = start; now - start < ms; now = performance.now()) {
    const due = Math.floor((rate * (now - start)) / 1000);
    for (; issued < due; issued++) {
      if (inFlight >= 2000) continue; // a peer that cannot keep up is not queued without end
      const k = keys[next]!;
      next = next + 1 === keys.length ? 0 : next + 1;
      const p = decide(k);
      if (p !== undefined) {
        inFlight++;
        void p.finally(() => inFlight--);
      }
    }
    await sleep(10);
  }
  while (inFlight > 0) await sleep(1);
  return issued;
}

async function measureCost(
  admin: Redis,
  keys: readonly string[],
  perKey: number,
  decide: Decide,
  smoke: boolean,
) {
  await offer(keys, perKey, smoke ? 500 : 3000, decide); // warm-up: every key known, synced, in its rhythm
  const s0 = await serverStats(admin);
  const done = await offer(keys, perKey, smoke ? 1000 : 5000, decide);
  const s1 = await serverStats(admin);
  return { cmds: (s1.cmds - s0.cmds - 1) / done, cpuUs: ((s1.cpu - s0.cpu) * 1e6) / done, done };
}

export const scaleRedis: BenchCase = {
  name: "scale-redis",
  title: "Redis work per request at low rates per key, and sync capacity",
  description: `Redis commands (INFO, scripts' inner commands included) and Redis CPU per request at 1 and 10 requests a second on each of ${KEYS.toLocaleString("en-US")} keys: a resil family against RateLimiterRedis; then key-syncs per second one replica gets through`,
  async run(opts) {
    const server = await privateRedis();
    const rows: Row[] = [];
    if (typeof server === "string") {
      for (const r of RATES) {
        rows.push(unavailableRow(`resil-${r}`, `resil, ${r}/s per key`, "per request", server));
        rows.push(unavailableRow(`rlf-${r}`, `RateLimiterRedis, ${r}/s per key`, "per request", server));
      }
      return rows;
    }
    const admin = await connect(server);
    const clients: Redis[] = [];
    try {
      const keys = makeKeys(opts.smoke ? 1000 : KEYS, "u");
      for (const perKey of RATES) {
        const client = await connect(server);
        clients.push(client);
        const limiter = new Limiter({ service: `scale${perKey}` }, new RedisStore(new IoRedisExec(client)));
        await limiter.start();
        limiter.setFamily("u", { requestsPerSecond: HUGE_LIMIT });
        const ours = await measureCost(
          admin,
          keys,
          perKey,
          (k) => (limiter.tryAdmit(k) === undefined ? limiter.check(k) : undefined),
          opts.smoke,
        );
        const syncs = limiter.syncRounds();
        await limiter.shutdown();
        const rlf = new RateLimiterRedis({
          storeClient: client,
          keyPrefix: `rlf${perKey}`,
          points: HUGE_LIMIT,
          duration: 1,
        });
        const peer = await measureCost(admin, keys, perKey, (k) => rlf.consume(k), opts.smoke);
        const fmt = (x: number) => x.toFixed(2);
        rows.push(
          statsRow(
            `resil-cmds-${perKey}`,
            `resil, ${perKey}/s per key: Redis commands per request`,
            "per request",
            [ours.cmds],
            `${ours.done} requests; ${syncs} round trips in all`,
          ),
        );
        rows.push(
          statsRow(
            `rlf-cmds-${perKey}`,
            `RateLimiterRedis, ${perKey}/s per key: Redis commands per request`,
            "per request",
            [peer.cmds],
            `${peer.done} requests`,
          ),
        );
        rows.push(
          statsRow(
            `resil-cpu-${perKey}`,
            `resil, ${perKey}/s per key: Redis CPU µs per request`,
            "per request",
            [ours.cpuUs],
            `${fmt(ours.cpuUs)} µs`,
          ),
        );
        rows.push(
          statsRow(
            `rlf-cpu-${perKey}`,
            `RateLimiterRedis, ${perKey}/s per key: Redis CPU µs per request`,
            "per request",
            [peer.cpuUs],
            `${fmt(peer.cpuUs)} µs`,
          ),
        );
      }
      // capacity: every key of a family needs a sync at once (one decision each on 50k fresh keys)
      const client = await connect(server);
      clients.push(client);
      const limiter = new Limiter({ service: "capacity" }, new RedisStore(new IoRedisExec(client)));
      await limiter.start();
      limiter.setFamily("c", { requestsPerSecond: HUGE_LIMIT });
      const fresh = makeKeys(opts.smoke ? 5000 : 50_000, "c");
      const t0 = performance.now();
      const before = limiter.syncRounds();
      for (let i = 0; i < fresh.length; i += 4096)
        await Promise.all(fresh.slice(i, i + 4096).map((k) => limiter.check(k)));
      const seconds = (performance.now() - t0) / 1000;
      rows.push(
        statsRow(
          "key-syncs",
          "resil key-syncs a second, one replica on Redis (first decision on fresh keys)",
          "key-syncs/s",
          [fresh.length / seconds],
          `${fresh.length} keys in ${seconds.toFixed(2)} s, ${limiter.syncRounds() - before} round trips`,
        ),
      );
      await limiter.shutdown();
      return rows;
    } finally {
      for (const c of clients) await disconnect(c);
      await disconnect(admin);
      await server.stop();
    }
  },
};
