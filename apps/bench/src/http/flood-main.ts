// Dev tool (not a case): a flood of fresh family subjects, all checked in one turn, on a MemoryStore
// whose every call answers `delayMs` later (a store that far away); prints how many were denied.
// usage: node --import tsx flood-main.ts [subjects=30000] [delayMs=20]; FLOOD_POLICY='{"requestsPerSecond":10}'
import {
  type Decision,
  Limiter,
  MemoryStore,
  OUTCOMES,
  type RateLimitConfig,
  type Store,
  systemClock,
} from "@resil/limit";

const subjects = Number(process.argv[2] ?? 30_000);
const delayMs = Number(process.argv[3] ?? 20);
const policy: RateLimitConfig = process.env.FLOOD_POLICY
  ? (JSON.parse(process.env.FLOOD_POLICY) as RateLimitConfig)
  : { algorithm: "sliding_window", requestsPerMinute: 100 };

const memory = new MemoryStore(systemClock);
const later = <T>(f: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => setTimeout(() => f().then(resolve, reject), delayMs));
const store: Store = { round: (request) => later(() => memory.round(request)) };

const limiter = new Limiter({ service: `flood-${process.pid}` }, store);
await limiter.start();
limiter.setFamily("ip:", policy);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const decisions: Decision[] = await Promise.all(
  Array.from({ length: subjects }, (_, i) => limiter.check(`ip:${i}`)),
);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const denied = decisions.filter((d) => d.kind === "deny").length;
const outcomes = Object.fromEntries(
  OUTCOMES.map((o) => [o, limiter.outcomeCount(o)]).filter(([, n]) => n !== 0),
);
console.log(
  `${subjects} subjects, store ${delayMs} ms away: ${ms.toFixed(0)} ms, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, ` +
    `${denied} denied (${((denied / subjects) * 100).toFixed(1)} %), heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB, ${JSON.stringify(outcomes)}`,
);
await limiter.shutdown();
