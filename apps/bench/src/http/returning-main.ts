// Dev tool (not a case): one limiter in this process on a private Redis (or a MemoryStore), 100,000
// family keys that come back after their idle credit lapsed (each asked once, 50 at a time). Prints
// CPU and key-syncs per check, and by allocation site the bytes per check no minor GC collected
// (promoted, still live, or collected by a major GC, which also sweeps the young generation): where a
// many-key gateway's GC goes.
// usage: [RETURNING_STORE=memory] node --expose-gc --import tsx returning-main.ts [idleSeconds=130] (node flags go before --import)
import { Session } from "node:inspector/promises";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { Limiter, MemoryStore, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import { Redis } from "ioredis";
import { privateRedis } from "../redis.js";
import { ADMIT } from "./ours.js";

const KEYS = 100_000;
const CONCURRENT = 50;
const idleS = Number(process.argv[2] ?? 130);
const gc = (globalThis as { gc?: (o?: { type: "minor" | "major" }) => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");

// RETURNING_STORE=memory: a MemoryStore in the process instead of the private Redis
const inMemory = process.env.RETURNING_STORE === "memory";
const srv = inMemory ? undefined : await privateRedis();
if (typeof srv === "string") throw new Error(srv);
const redis = srv === undefined ? undefined : new Redis(srv.port, "127.0.0.1");
const store = redis === undefined ? new MemoryStore() : new RedisStore(new IoRedisExec(redis));
const limiter = new Limiter({ service: "returning" }, store);
await limiter.start();
limiter.setFamily("k:a", ADMIT);
const keys = Array.from({ length: KEYS }, (_, i) => `k:a${i}`);
interface Internals {
  exchange: { keySyncs: number };
  idle: { evicted: number };
  subjects: { families: { get(prefix: string): { spares: { size: number } } | undefined } };
}
const internals = limiter as unknown as Internals;
const keySyncs = () => internals.exchange.keySyncs;
const spares = () => internals.subjects.families.get("k:a")?.spares.size ?? 0;
for (let pass = 0; pass < 3; pass++) {
  for (let i = 0; i < KEYS; i += 2048)
    await Promise.all(keys.slice(i, i + 2048).map((k) => limiter.check(k)));
}
await new Promise((r) => setTimeout(r, idleS * 1000));

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}
const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
// objects a minor GC collected are left out
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: false,
} as object);
const gcs = { minor: 0, major: 0, ms: 0 };
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcs.minor++;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcs.major++;
    gcs.ms += e.duration;
  }
});
observer.observe({ entryTypes: ["gc"] });
let next = 0;
const started = Date.now();
const [forgotten0, spares0] = [internals.idle.evicted, spares()];
const cpu0 = process.cpuUsage();
const syncs0 = keySyncs();
await Promise.all(
  Array.from({ length: CONCURRENT }, async () => {
    while (next < KEYS) await limiter.check(keys[next++]!);
  }),
);
const cpu = process.cpuUsage(cpu0);
const [forgotten1, spares1] = [internals.idle.evicted, spares()];
await new Promise((r) => setImmediate(r));
observer.disconnect();
const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
gc({ type: "minor" });
gc({ type: "minor" });
const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as {
  profile: { head: Node };
};
console.log(
  `${KEYS} checks in ${((Date.now() - started) / 1000).toFixed(2)} s: ${((cpu.user + cpu.system) / KEYS).toFixed(1)} µs CPU and ${((keySyncs() - syncs0) / KEYS).toFixed(2)} key-syncs per check`,
);
const bySite = new Map<string, number>();
const frame = (n: Node) =>
  `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
const walk = (n: Node, callers: string[]) => {
  const site = [frame(n), ...callers.slice(0, 2)].join(" < ");
  if (n.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
  for (const c of n.children) walk(c, [frame(n), ...callers]);
};
walk(profile.head, []);
let total = 0;
for (const b of bySite.values()) total += b;
console.log(
  `keys forgotten: ${forgotten0} before the checks, ${forgotten1 - forgotten0} during; spare parts kept: ${spares0} at the start, ${spares1} at the end`,
);
console.log(
  `GC while checking: ${gcs.minor} minor, ${gcs.major} major, ${gcs.ms.toFixed(0)} ms; young generation ${((young?.space_size ?? 0) / 2 ** 20).toFixed(1)} MiB`,
);
console.log(`${(total / KEYS).toFixed(0)} bytes per check no minor GC collected; by site:`);
for (const [site, b] of [...bySite].sort((a, z) => z[1] - a[1]).slice(0, 25))
  console.log(`${(b / KEYS).toFixed(1).padStart(8)}  ${site}`);
await limiter.shutdown();
redis?.disconnect();
await srv?.stop();
