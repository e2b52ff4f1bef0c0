import {
  Limiter,
  MemoryStore,
  type RateLimitConfig,
  type RoundReply,
  type RoundRequest,
  type Store,
  systemClock,
} from "@resil/limit";
import { collectGarbage, statsRow } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import type { BenchCase, Row } from "../types.js";

const POLICY: RateLimitConfig = { requestsPerSecond: HUGE_LIMIT, localAllowance: 0.8, cacheTtlMs: 500 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function heapUsed(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Share of one core this process used over `ms` of wall time. */
async function cpuShare(ms: number): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const c = process.cpuUsage(c0);
  return (100 * (c.user + c.system)) / 1000 / (performance.now() - t0);
}

/** One decision on each key (check, 1024 at a time), so each is synced and holds credit. */
async function useAll(limiter: Limiter, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1024) {
    await Promise.all(keys.slice(i, i + 1024).map((k) => limiter.tryCheck(k) ?? limiter.check(k)));
  }
}

/** Counts the keys the limiter syncs: no key-sync for a while means the work after the last use is over. */
class CountingStore implements Store {
  keySyncs = 0;
  constructor(private readonly inner: Store) {}
  round(request: RoundRequest): Promise<RoundReply> {
    this.keySyncs += request.rates.length + request.concurrency.length;
    return this.inner.round(request);
  }
}

// The store keys of a 1 s limit expire this long after their last sync (2 x 1 s + 3 s lease + 1 s),
// with a slot of the store's expiry queue on top.
const STORE_TTL_MS = 7000;

/** Waits until no key has synced for `quietMs`, at most `maxMs`; returns the ms waited. */
async function settled(store: CountingStore, quietMs: number, maxMs: number): Promise<number> {
  const t0 = performance.now();
  let last = store.keySyncs;
  let quietSince = t0;
  while (performance.now() - t0 < maxMs) {
    await sleep(250);
    if (store.keySyncs !== last) {
      last = store.keySyncs;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) break;
  }
  return performance.now() - t0;
}

/**
 * setPolicy keys are never evicted: once their credit lapses they leave the sync schedule. Measured
 * once they are idle: the pushes of their last admits are over (with a million keys they take many
 * seconds on a shared host) and their store keys have expired (the store's work, Redis's in production).
 */
async function knownIdle(keys: readonly string[], smoke: boolean): Promise<Row> {
  const store = new CountingStore(new MemoryStore(systemClock));
  const limiter = new Limiter({ podId: "idle" }, store);
  await limiter.start();
  for (const k of keys) limiter.setPolicy(k, POLICY);
  await useAll(limiter, keys);
  const waitedMs = await settled(store, smoke ? 3000 : STORE_TTL_MS, 120_000);
  const cpu: number[] = [];
  for (let s = 0; s < (smoke ? 1 : 3); s++) cpu.push(await cpuShare(smoke ? 500 : 2000));
  const held = limiter.size;
  await limiter.shutdown();
  return statsRow(
    "idle-cpu-known",
    `resil, ${keys.length.toLocaleString("en-US")} known idle keys (setPolicy)`,
    "% of a core",
    cpu,
    `${held} subjects held; measured ${(waitedMs / 1000).toFixed(0)} s after the last use, once no key had synced for ${(smoke ? 3000 : STORE_TTL_MS) / 1000} s`,
  );
}

/** Family subjects are evicted once idle: the heap goes back to where it was. */
async function evicted(keys: readonly string[], smoke: boolean): Promise<Row[]> {
  const limiter = new Limiter({ podId: "idle" }, new MemoryStore(systemClock));
  await limiter.start();
  limiter.setFamily("k", POLICY);
  await useAll(limiter, makeKeys(1000, "warm")); // code paths and timers warm
  await sleep(8000);
  const before = heapUsed();
  const t0 = performance.now();
  await useAll(limiter, keys);
  const full = heapUsed();
  const c0 = process.cpuUsage();
  const u0 = performance.now();
  // idle time: 4 s after the last sync; then the store keys expire (2 x 1 s + 3 s + 1 s)
  while (limiter.size > 0 && performance.now() - t0 < 60_000) await sleep(500);
  const goneMs = performance.now() - t0;
  await sleep(smoke ? 2000 : 8000);
  const c = process.cpuUsage(c0);
  const cpu = (100 * (c.user + c.system)) / 1000 / (performance.now() - u0);
  const after = heapUsed();
  await limiter.shutdown();
  const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;
  return [
    statsRow(
      "heap-after-idle",
      `resil heap after ${keys.length.toLocaleString("en-US")} family subjects went idle, over the heap before`,
      "x baseline",
      [after / before],
      `before ${mb(before)}, with the subjects ${mb(full)}, after ${mb(after)}; all evicted ${(goneMs / 1000).toFixed(1)} s after the first use`,
    ),
    statsRow("evict-cpu", "resil CPU from the last use until evicted and expired", "% of a core", [cpu]),
  ];
}

export const scaleIdle: BenchCase = {
  name: "scale-idle",
  title: "Idle CPU and heap with many known keys",
  description:
    "a started Limiter on a MemoryStore: CPU while 1M setPolicy keys sit idle (after their credit lapsed), and the heap after 1M family subjects went idle (evicted) against the heap before them",
  async run(opts) {
    const keys = makeKeys(opts.smoke ? 20_000 : 1_000_000);
    // BENCH_IDLE_PARTS=known (or evicted) narrows a run
    const parts = process.env.BENCH_IDLE_PARTS?.split(",") ?? ["known", "evicted"];
    const rows: Row[] = parts.includes("known") ? [await knownIdle(keys, opts.smoke)] : [];
    collectGarbage();
    if (parts.includes("evicted")) rows.push(...(await evicted(keys, opts.smoke)));
    return rows;
  },
};
