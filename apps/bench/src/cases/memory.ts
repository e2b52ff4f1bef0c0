import { Limiter, type MemoryStore, type RedisStore } from "@resil/limit";
import { collectGarbage, statsRow } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import { limiterPerKey } from "../peers/limiter-windows.js";
import { RlfWindows, rlfOneWindow } from "../peers/rlf-windows.js";
import { memoryLimiter, type ResilHandle } from "../resil-setup.js";
import type { BenchCase, Row } from "../types.js";

function heapUsed(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** What `keys` active keys hold after one decision each, kept alive until the heap is read. */
interface Built {
  held: unknown;
  close?: () => Promise<void>;
}
type Build = (keys: readonly string[]) => Promise<Built>;

async function bytesPerKey(keys: readonly string[], build: Build, samples: number): Promise<number[]> {
  const out: number[] = [];
  // Declared out here and cleared by hand: an async function's frame would keep the last sample's
  // structure alive into the next "before" reading.
  let built: Built | undefined;
  for (let s = 0; s < samples; s++) {
    const before = heapUsed();
    built = await build(keys);
    const after = heapUsed();
    out.push((after - before) / keys.length);
    await built.close?.();
    built = undefined;
  }
  return out;
}

const floor: Build = async (keys) => {
  const map = new Map<string, { s: number; m: number; h: number }>();
  for (const k of keys) map.set(k, { s: 1, m: 1, h: 1 });
  return { held: map };
};

const limiter: Build = async (keys) => {
  const map = limiterPerKey(keys);
  for (const k of keys) map.get(k)?.tryRemove();
  return { held: map };
};

/** A family's subjects on a Limiter without a store (local-only, like RateLimiterMemory), 1 window. */
const resilFamily1: Build = async (keys) => {
  const l = new Limiter({ podId: "bench" });
  l.setFamily("k", { requestsPerSecond: HUGE_LIMIT, localAllowance: 0.8, cacheTtlMs: 500 });
  for (const k of keys) l.tryCheck(k);
  return { held: l, close: () => l.shutdown() };
};

const rlf: Build = async (keys) => {
  const r = new RlfWindows();
  for (const k of keys) await r.consume(k);
  return { held: r };
};

const rlf1: Build = async (keys) => {
  const r = rlfOneWindow();
  for (const k of keys) await r.consume(k);
  return { held: r };
};

/**
 * resil's Limiter on a MemoryStore, split in two: what the replica keeps per key, and the store's
 * share (which lives in Redis in production). The store is read alone once the limiter is gone.
 */
async function resilSplit(
  keys: readonly string[],
  samples: number,
): Promise<{ replica: number[]; store: number[] }> {
  const replica: number[] = [];
  const store: number[] = [];
  let h: ResilHandle | undefined;
  let kept: MemoryStore | RedisStore | undefined;
  for (let s = 0; s < samples; s++) {
    const before = heapUsed();
    h = await memoryLimiter(keys, 1);
    const both = heapUsed();
    kept = h.store;
    await h.close();
    h = undefined;
    const storeOnly = heapUsed();
    replica.push((both - storeOnly) / keys.length);
    store.push((storeOnly - before) / keys.length);
    kept = undefined;
  }
  if (kept !== undefined) console.log(kept); // never: `kept` is read so the store stays alive above
  return { replica, store };
}

export const memory: BenchCase = {
  name: "memory",
  title: "Memory per active key",
  description:
    "heap growth after one decision on each of 100 000 keys with 3 windows (and 1 window: family subjects against RateLimiterMemory's), divided by the keys (--expose-gc)",
  async run(opts) {
    const keys = makeKeys(opts.smoke ? 5_000 : 100_000);
    const samples = opts.smoke ? 1 : 3;
    if (typeof (globalThis as { gc?: unknown }).gc !== "function") {
      throw new Error("memory case needs node --expose-gc");
    }
    const rows: Row[] = [];
    rows.push(
      statsRow(
        "floor",
        "floor: Map of 3 counters per key",
        "bytes/key",
        await bytesPerKey(keys, floor, samples),
      ),
    );
    const resil = await resilSplit(keys, samples);
    rows.push(statsRow("resil", "resil Limiter (the replica's own state)", "bytes/key", resil.replica));
    rows.push(
      statsRow(
        "resil-store",
        "resil MemoryStore (the store's share)",
        "bytes/key",
        resil.store,
        "in production this lives in Redis, not in the replica",
      ),
    );
    rows.push(
      statsRow(
        "resil-family-1w",
        "resil Limiter, family subjects, local-only, 1 window",
        "bytes/key",
        await bytesPerKey(keys, resilFamily1, samples),
        "compare RateLimiterMemory, 1 window",
      ),
    );
    rows.push(
      statsRow(
        "limiter",
        "limiter RateLimiter x 3 windows per key",
        "bytes/key",
        await bytesPerKey(keys, limiter, samples),
      ),
    );
    rows.push(
      statsRow(
        "rlf-memory",
        "RateLimiterMemory x 3 windows",
        "bytes/key",
        await bytesPerKey(keys, rlf, samples),
      ),
    );
    rows.push(
      statsRow(
        "rlf-memory-1w",
        "RateLimiterMemory, 1 window",
        "bytes/key",
        await bytesPerKey(keys, rlf1, samples),
      ),
    );
    return rows;
  },
};
