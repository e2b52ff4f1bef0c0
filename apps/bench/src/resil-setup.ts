import {
  Limiter,
  MemoryStore,
  type RateLimitConfig,
  type RedisExec,
  RedisStore,
  systemClock,
} from "@resil/limit";
import { HUGE_LIMIT } from "./keys.js";

/** The bench policy of @resil/limit docs/protocol.md#s6: sliding window, 2e9 per second, minute and hour, allowance 0.8, cache TTL 500 ms. */
export const BENCH_POLICY: RateLimitConfig = {
  algorithm: "sliding_window",
  requestsPerSecond: HUGE_LIMIT,
  requestsPerMinute: HUGE_LIMIT,
  requestsPerHour: HUGE_LIMIT,
  localAllowance: 0.8,
  cacheTtlMs: 500,
};

export interface ResilHandle {
  limiter: Limiter;
  store: MemoryStore | RedisStore;
  /** Keys tryCheck still could not decide alone after the credit passes. */
  uncredited: number;
  close(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Checks every key until tryCheck can decide it alone (the key holds credit), a few passes at most. */
export async function credit(limiter: Limiter, keys: readonly string[], passes = 5): Promise<number> {
  let pending: readonly string[] = keys;
  for (let pass = 0; pass < passes && pending.length > 0; pass++) {
    for (let i = 0; i < pending.length; i += 1024) {
      await Promise.all(pending.slice(i, i + 1024).map((k) => limiter.check(k)));
    }
    await sleep(50);
    pending = pending.filter((k) => limiter.tryCheck(k) === undefined);
  }
  return pending.length;
}

async function started(
  limiter: Limiter,
  store: MemoryStore | RedisStore,
  keys: readonly string[],
  passes: number,
): Promise<ResilHandle> {
  await limiter.start();
  for (const k of keys) limiter.setPolicy(k, BENCH_POLICY);
  const uncredited = await credit(limiter, keys, passes);
  return { limiter, store, uncredited, close: () => limiter.shutdown() };
}

/** A started Limiter (default clock: one reading per event-loop turn) on a MemoryStore with the wall clock, its keys credited. */
export function memoryLimiter(keys: readonly string[], creditPasses = 5): Promise<ResilHandle> {
  const store = new MemoryStore(systemClock);
  return started(new Limiter({ service: "bench", podId: "bench-0" }, store), store, keys, creditPasses);
}

/** A started Limiter on a RedisStore over `exec`, its keys credited. */
export function redisLimiter(
  keys: readonly string[],
  exec: RedisExec,
  creditPasses = 5,
): Promise<ResilHandle> {
  const store = new RedisStore(exec);
  return started(new Limiter({ service: "bench", podId: "bench-0" }, store), store, keys, creditPasses);
}
