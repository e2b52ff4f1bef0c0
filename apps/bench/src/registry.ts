import type { BenchCase } from "./types.js";

/** Every case, in run order; each is imported only inside its own process. */
export const CASES: ReadonlyArray<{
  name: string;
  load: () => Promise<BenchCase>;
  limitMs?: number;
  smokeLimitMs?: number;
}> = [
  { name: "hot-1", load: async () => (await import("./cases/hot-1.js")).hot1 },
  { name: "hot-16", load: async () => (await import("./cases/hot-16.js")).hot16 },
  { name: "keys-10k", load: async () => (await import("./cases/keys-10k.js")).keys10k },
  { name: "meters", load: async () => (await import("./cases/meters.js")).meters },
  { name: "breakers", load: async () => (await import("./cases/breakers.js")).breakers },
  { name: "composed", load: async () => (await import("./cases/composed.js")).composed },
  { name: "memory", load: async () => (await import("./cases/memory.js")).memory },
  { name: "redis-commands", load: async () => (await import("./cases/redis-commands.js")).redisCommands },
  // 15 servers x 3 key counts x 2 modes, each Redis row draining its setup first; 45 min: a slow
  // 2-core host went past 30 (in a smoke run the servers start from source side by side, about 20 s)
  {
    name: "http",
    load: async () => (await import("./cases/http.js")).http,
    limitMs: 2_700_000,
    smokeLimitMs: 150_000,
  },
  { name: "scale-idle", load: async () => (await import("./cases/scale-idle.js")).scaleIdle },
  { name: "scale-redis", load: async () => (await import("./cases/scale-redis.js")).scaleRedis },
  // each library alone in its process, two rounds, up to 1M keys each
  {
    name: "scale-keys",
    load: async () => (await import("./cases/scale-keys.js")).scaleKeys,
    limitMs: 900_000,
  },
  { name: "settle-wait", load: async () => (await import("./cases/settle-wait.js")).settleWait },
];

export const CASE_NAMES: readonly string[] = CASES.map((c) => c.name);

/** How long a full run of case `name` may take before its process is stopped. */
export function caseLimitMs(name: string, smoke: boolean): number {
  const c = CASES.find((x) => x.name === name);
  if (smoke) return c?.smokeLimitMs ?? 60_000;
  return c?.limitMs ?? 240_000;
}
