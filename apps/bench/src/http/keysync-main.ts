// Dev tool (not a case): the server's CPU per key-sync with no HTTP in the way. One Limiter on a
// private Redis, family subjects each checked once for the first time (every check waits for its
// key's sync, as a request on a key whose credit lapsed does), 50 checks in flight like 50 connections.
// usage: node --import tsx keysync-main.ts [keys=60000] [passes=3] [cpuProfDir]; KS_RLF=1 or KS_MEMORY=1

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { Limiter, MemoryStore, RedisStore, systemClock } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { privateRedis } from "../redis.js";
import { ADMIT } from "./ours.js";

const keys = Number(process.argv[2] ?? 60_000);
const passes = Number(process.argv[3] ?? 3);
const profDir = process.argv[4];
const server = await privateRedis();
if (typeof server === "string") throw new Error(server);
const client = new Redis(server.port, "127.0.0.1", { maxRetriesPerRequest: 1 });
const admin = new Redis(server.port, "127.0.0.1");
const INFLIGHT = 50;
let session: Session | undefined;
for (let pass = 0; pass < passes; pass++) {
  const limiter = new Limiter(
    { service: `ks-${process.pid}-${pass}` },
    // KS_MEMORY=1: a MemoryStore in this process instead of Redis (the wait without the network)
    process.env.KS_MEMORY ? new MemoryStore(systemClock) : new RedisStore(new IoRedisExec(client)),
  );
  await limiter.start();
  limiter.setFamily("k:", ADMIT);
  // warm the JIT on other subjects
  for (let i = 0; i < 5_000; i += INFLIGHT)
    await Promise.all(Array.from({ length: INFLIGHT }, (_, j) => limiter.check(`k:w${i + j}`)));
  if (profDir && pass === passes - 1) {
    session = new Session();
    session.connect();
    if (process.env.KS_ALLOC)
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 2048,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      } as never);
    else {
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
    }
  }
  // KS_RLF=1: rate-limiter-flexible's RateLimiterRedis on the same keys instead
  const rlf = process.env.KS_RLF
    ? new RateLimiterRedis({
        storeClient: client,
        points: 2_000_000_000,
        duration: 60,
        keyPrefix: `rlf${pass}`,
      })
    : undefined;
  const redis0 = await redisCpu();
  const net0 = await redisNet();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  let admitted = 0;
  const worker = async () => {
    while (next < keys) {
      if (rlf !== undefined) {
        await rlf.consume(`k:${next++}`);
        admitted++;
        continue;
      }
      const d = await limiter.check(`k:${next++}`);
      if (d.kind === "allow") admitted++;
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  const cpu = process.cpuUsage(cpu0);
  const ms = performance.now() - t0;
  const redisUs = (await redisCpu()) - redis0;
  const net = (await redisNet()).map((b, i) => (b - net0[i]!) / keys);
  if (session) {
    if (process.env.KS_ALLOC) {
      const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: unknown };
      writeFileSync(`${profDir}/keysync.heapprofile`, JSON.stringify(profile));
    } else {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(`${profDir}/keysync.cpuprofile`, JSON.stringify(profile));
    }
  }
  console.log(
    `pass ${pass}: ${((cpu.user + cpu.system) / keys).toFixed(1)} µs CPU/check, ${(redisUs / keys).toFixed(1)} µs Redis/check, ${(keys / (ms / 1000)).toFixed(0)} checks/s, ${admitted} admitted, ${limiter.syncRounds()} rounds, ${net[0]!.toFixed(0)} B in + ${net[1]!.toFixed(0)} B out per check`,
  );
  await limiter.shutdown();
}
async function redisCpu(): Promise<number> {
  const info = await admin.info("cpu");
  const n = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (n("used_cpu_user") + n("used_cpu_sys")) * 1e6;
}
async function redisNet(): Promise<number[]> {
  const info = await admin.info("stats");
  const n = (k: string) => Number(new RegExp(`${k}:([0-9]+)`).exec(info)?.[1] ?? 0);
  return [n("total_net_input_bytes"), n("total_net_output_bytes")];
}
client.disconnect();
admin.disconnect();
await server.stop();
