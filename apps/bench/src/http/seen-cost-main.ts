// Dev tool: what a rate request's `seen` (the windows its replica last saw) costs. Rounds of 64 keys
// (one script call, compact blocks: an ask with a push and a request waiting) against a private
// Redis, passes with and without `seen` alternating; prints Redis CPU (INFO commandstats, EVALSHA)
// and this process's CPU per key-sync.
// usage (from apps/bench/src/http): node --import tsx seen-cost-main.ts [passes]
import { type RateRequest, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import { connect, disconnect, privateRedis } from "../redis.js";

const passes = Number(process.argv[2] ?? 6);
const KEYS = 20_000;
const PER_ROUND = 64;
const ROUNDS = 1000;
const srv = await privateRedis();
if (typeof srv === "string") throw new Error(srv);
const client = await connect(srv);
const store = new RedisStore(new IoRedisExec(client), { keysPerCall: PER_ROUND });
const windows = [{ limit: 100, windowMs: 1000, burst: 100 }];
let total = 0;

function request(i: number, withSeen: boolean): RateRequest {
  total++;
  const r: RateRequest = {
    key: `rl2:{cost:s${i}}:0000000000000001`,
    alg: 0,
    windows,
    pod: "p1",
    hits: 1,
    hitsOld: 0,
    tOld: 0,
    unused: 0,
    want: 3,
    need: 1,
    pushId: `id${i}`,
    pushTotal: total,
    allowance: 0.8,
    replicas: 4,
    leaseTtlMs: 3000,
  };
  if (withSeen) r.seen = [{ idx: Math.floor(Date.now() / 1000), cur: 3 + (i % 7), prev: 2, tat: 0 }];
  return r;
}

async function evalshaUsec(): Promise<number> {
  const info = (await client.info("commandstats")) as string;
  return Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(info)?.[1] ?? 0);
}

for (let p = 0; p < passes; p++) {
  const withSeen = p % 2 === 1;
  await client.config("RESETSTAT");
  const cpu = process.cpuUsage();
  let next = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const rates = Array.from({ length: PER_ROUND }, () => request(next++ % KEYS, withSeen));
    await store.round({ releases: [], rates, concurrency: [] });
  }
  const used = process.cpuUsage(cpu);
  const n = ROUNDS * PER_ROUND;
  const redisUs = (await evalshaUsec()) / n;
  const ownUs = (used.user + used.system) / n;
  console.log(
    `seen ${withSeen ? "yes" : "no "}: Redis ${redisUs.toFixed(2)} µs, process ${ownUs.toFixed(2)} µs per key-sync`,
  );
}
await disconnect(client);
await srv.stop();
