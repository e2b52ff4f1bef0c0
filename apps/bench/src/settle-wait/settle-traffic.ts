import { Limiter, type RedisExec, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import type { RedisServer } from "@resil/testkit";
import { Redis } from "ioredis";
import { commandsProcessed } from "../redis.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One replica's traffic: `rate` requests a second over `keys`, each estimated at `estimate` units. */
export interface Traffic {
  keys: readonly string[];
  rate: number;
  estimate: number;
  /** Units per second per key (the tokens-per-second budget); offered is about half of it. */
  limit: number;
}

/** A deterministic stream of actual/estimate factors in 0.5..2 (no Math.random: both runs see the same). */
function factors(): () => number {
  let s = 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return 0.5 + 1.5 * ((s >>> 0) / 0x1_0000_0000);
  };
}

/**
 * Offers the traffic for `ms` and returns the Redis commands per second the server ran meanwhile
 * (INFO deltas, this replica alone on the server). Each request costs actual = estimate x a factor in
 * 0.5..2 (the same stream in both runs): without `settle` it is taken up front; with it, the estimate
 * is taken and settled to the actual right after admission (refunds and extra charges).
 */
export async function commandsPerSecond(
  server: RedisServer,
  admin: Redis,
  t: Traffic,
  settle: boolean,
  warmMs: number,
  ms: number,
): Promise<{
  cmdsPerSec: number;
  admitted: number;
  settled: number;
  unitsPerSec: number;
  roundsPerSec: number;
  sentPerSec: number;
}> {
  const client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
  const service = settle ? "bench-settle" : "bench-nosettle";
  const exec = new IoRedisExec(client);
  let sent = 0;
  const counted: RedisExec = {
    pipeline(commands) {
      sent += commands.length;
      return exec.pipeline(commands);
    },
  };
  const limiter = new Limiter({ service, podId: "traffic-0" }, new RedisStore(counted));
  await limiter.start();
  for (const k of t.keys) limiter.setPolicy(k, { algorithm: "sliding_window", requestsPerSecond: t.limit });
  const next = factors();
  let admitted = 0;
  let settled = 0;
  let units = 0;
  const decide = (k: string): Promise<void> | undefined => {
    const takenAt = limiter.storeTime();
    const actual = Math.round(t.estimate * next());
    const cost = settle ? t.estimate : actual;
    const settleIt = () => {
      admitted++;
      units += cost;
      if (!settle) return;
      units += limiter.settle(k, actual - t.estimate, takenAt);
      settled++;
    };
    const fast = limiter.tryAdmit(k, cost);
    if (fast === true) settleIt();
    if (fast !== undefined) return undefined;
    return limiter.check(k, cost).then((d) => {
      if (d.kind !== "deny") settleIt();
    });
  };
  const drive = async (forMs: number) => {
    let issued = 0;
    let next = 0;
    let inFlight = 0;
    const start = performance.now();
    for (let now = start; now - start < forMs; now = performance.now()) {
      const due = Math.floor((t.rate * (now - start)) / 1000);
      for (; issued < due; issued++) {
        const k = t.keys[next]!;
        next = next + 1 === t.keys.length ? 0 : next + 1;
        const pending = decide(k);
        if (pending !== undefined) {
          inFlight++;
          void pending.finally(() => inFlight--);
        }
      }
      await sleep(5);
    }
    while (inFlight > 0) await sleep(1);
  };
  try {
    await drive(warmMs);
    admitted = 0;
    settled = 0;
    units = 0;
    const c0 = await commandsProcessed(admin);
    const r0 = limiter.syncRounds();
    const s0 = sent;
    const t0 = performance.now();
    await drive(ms);
    const seconds = (performance.now() - t0) / 1000;
    const c1 = await commandsProcessed(admin);
    return {
      cmdsPerSec: (c1 - c0 - 1) / seconds,
      admitted,
      settled,
      unitsPerSec: units / seconds,
      roundsPerSec: (limiter.syncRounds() - r0) / seconds,
      sentPerSec: (sent - s0) / seconds,
    };
  } finally {
    await limiter.shutdown();
    client.disconnect();
  }
}
