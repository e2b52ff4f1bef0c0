import { Limiter, MemoryStore, type RateLimitConfig, systemClock } from "@resil/limit";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { collectGarbage, measure, measureOptions, statsRow, type Variant } from "../harness.js";
import { HUGE_LIMIT, makeKeys } from "../keys.js";
import { RlfWindows } from "../peers/rlf-windows.js";
import {
  type Consume,
  consumeCallers,
  consumeOne,
  tryCheckCallers,
  tryCheckOne,
} from "../scale/walk-variants.js";
import type { BenchCase, Row } from "../types.js";
import { type UndecidedCounter, undecidedNote } from "../variants.js";

const ONE_WINDOW: RateLimitConfig = { requestsPerSecond: HUGE_LIMIT, localAllowance: 0.8, cacheTtlMs: 500 };
const THREE_WINDOWS: RateLimitConfig = {
  ...ONE_WINDOW,
  requestsPerMinute: HUGE_LIMIT,
  requestsPerHour: HUGE_LIMIT,
};

function sizeTag(count: number): string {
  return count >= 1e6 ? `${count / 1e6}M` : `${count / 1e3}k`;
}

async function measured(
  list: Variant[],
  count: number,
  opts: { smoke: boolean },
  counters: Map<string, UndecidedCounter>,
) {
  // every key known to every variant before the samples: the walk measures decisions, not creation
  for (const v of list) await v.chunk(count);
  for (const c of counters.values()) Object.assign(c, { undecided: 0, total: 0 });
  const rows = await measure(list, measureOptions(opts, opts.smoke ? {} : { samples: 5, sampleMs: 200 }));
  for (const r of rows) {
    const c = counters.get(r.id);
    const note = c && undecidedNote(c);
    if (note && r.available) r.note = note;
  }
  return rows;
}

function counterOf(counters: Map<string, UndecidedCounter>, id: string): UndecidedCounter {
  const c = { undecided: 0, total: 0 };
  counters.set(id, c);
  return c;
}

/** BENCH_SCALE_ONLY=resil-,rlf-1 keeps the variants whose id starts with one of these. */
function selected(all: Variant[]): Variant[] {
  const only = process.env.BENCH_SCALE_ONLY?.split(",");
  return only === undefined ? all : all.filter((v) => only.some((p) => v.id.startsWith(p)));
}

/** Rounds of the local comparison: each library measured this many times, in alternating order. */
const LOCAL_ROUNDS = 2;
// RateLimiterMemory's expiry timers of a 1 s window have all fired this long after its last use.
const PEER_TIMERS_MS = 1200;

/**
 * resil local-only (a family, no setPolicy, no store: each process enforces its own limit, as
 * RateLimiterMemory does) against RateLimiterMemory, 1 and 16 callers; nothing runs in the background.
 * Each library is measured with only its own keys in the process (RateLimiterMemory expires each key
 * with a timer of its own: a million of them firing between the other library's chunks were counted
 * against it), in alternating rounds so that drift of a shared host reaches both.
 */
async function localRows(opts: { smoke: boolean }, count: number, windows: 1 | 3): Promise<Row[]> {
  const keys = makeKeys(count);
  const samples = new Map<string, Row[]>();
  const rounds = opts.smoke ? 1 : LOCAL_ROUNDS;
  // one short round of each, discarded: the first samples of a size otherwise include the JIT's tiering
  if (!opts.smoke) {
    await ourLocalRows({ smoke: true }, keys, windows);
    await theirLocalRows({ smoke: true }, keys, windows);
  }
  for (let r = 0; r < rounds; r++) {
    const phases = [() => ourLocalRows(opts, keys, windows), () => theirLocalRows(opts, keys, windows)];
    if (r % 2 === 1) phases.reverse();
    for (const phase of phases) {
      for (const row of await phase()) samples.set(row.id, [...(samples.get(row.id) ?? []), row]);
    }
  }
  return [...samples.values()].map((rows) => {
    const first = rows[0]!;
    if (rows.length === 1 || !first.available) return first;
    return statsRow(
      first.id,
      first.label,
      first.unit,
      rows.flatMap((row) => row.values ?? []),
      first.note,
    );
  });
}

async function ourLocalRows(
  opts: { smoke: boolean },
  keys: readonly string[],
  windows: 1 | 3,
): Promise<Row[]> {
  const tag = `${sizeTag(keys.length)}-${windows}w`;
  const local = new Limiter({ podId: "bench" });
  local.setFamily("k", windows === 1 ? ONE_WINDOW : THREE_WINDOWS);
  const counters = new Map<string, UndecidedCounter>();
  const ours = selected([
    tryCheckOne(
      `resil-${tag}-1`,
      `resil tryCheck, local-only, ${tag}, 1 caller`,
      local,
      keys,
      counterOf(counters, `resil-${tag}-1`),
    ),
    tryCheckCallers(
      `resil-${tag}-16`,
      `resil tryCheck, local-only, ${tag}, 16 callers`,
      local,
      keys,
      counterOf(counters, `resil-${tag}-16`),
    ),
  ]);
  try {
    return ours.length > 0 ? await measured(ours, keys.length, opts, counters) : [];
  } finally {
    await local.shutdown();
    collectGarbage();
  }
}

async function theirLocalRows(
  opts: { smoke: boolean },
  keys: readonly string[],
  windows: 1 | 3,
): Promise<Row[]> {
  const tag = `${sizeTag(keys.length)}-${windows}w`;
  const rlf: Consume =
    windows === 1
      ? new RateLimiterMemory({ keyPrefix: "s1", points: HUGE_LIMIT, duration: 1 })
      : new RlfWindows();
  const theirs = selected([
    consumeOne(`rlf-${tag}-1`, `RateLimiterMemory x ${windows}, ${tag}, 1 caller`, rlf, keys),
    consumeCallers(`rlf-${tag}-16`, `RateLimiterMemory x ${windows}, ${tag}, 16 callers`, rlf, keys),
  ]);
  if (theirs.length === 0) return [];
  const rows = await measured(theirs, keys.length, opts, new Map());
  await new Promise((resolve) => setTimeout(resolve, PEER_TIMERS_MS));
  collectGarbage();
  return rows;
}

/** The cluster protocol on an in-process store (credit, background rounds), measured alone: its rounds run between chunks. */
async function syncedRows(opts: { smoke: boolean }, count: number): Promise<Row[]> {
  const keys = makeKeys(count);
  const tag = `${sizeTag(count)}-1w`;
  const synced = new Limiter({ podId: "bench" }, new MemoryStore(systemClock));
  await synced.start();
  synced.setFamily("k", ONE_WINDOW);
  const counters = new Map<string, UndecidedCounter>();
  const list: Variant[] = [
    tryCheckOne(
      `synced-${tag}-1`,
      `resil tryCheck, MemoryStore, ${tag}, 1 caller`,
      synced,
      keys,
      counterOf(counters, `synced-${tag}-1`),
    ),
    tryCheckCallers(
      `synced-${tag}-16`,
      `resil tryCheck, MemoryStore, ${tag}, 16 callers`,
      synced,
      keys,
      counterOf(counters, `synced-${tag}-16`),
    ),
  ];
  try {
    return await measured(list, count, opts, counters);
  } finally {
    await synced.shutdown();
    collectGarbage();
  }
}

/** One decision on a subject never seen before: creation included (resil: a family, no setPolicy). */
async function firstRows(opts: { smoke: boolean }): Promise<Row[]> {
  const local = new Limiter({ podId: "bench" });
  local.setFamily("n", ONE_WINDOW);
  const rlf = new RateLimiterMemory({ keyPrefix: "n1", points: HUGE_LIMIT, duration: 1 });
  let ours = 0;
  let theirs = 0;
  const list: Variant[] = [
    {
      id: "resil-first",
      label: "resil tryCheck on a new subject (family, local-only, 1 window)",
      chunk(n) {
        let ok = 0;
        for (let i = 0; i < n; i++) if (local.tryCheck(`n${ours++}`)?.kind === "allow") ok++;
        return ok;
      },
    },
    {
      id: "rlf-first",
      label: "RateLimiterMemory consume on a new key (1 window)",
      async chunk(n) {
        for (let i = 0; i < n; i++) await rlf.consume(`n${theirs++}`);
        return n;
      },
    },
  ];
  try {
    return await measure(list, measureOptions(opts));
  } finally {
    await local.shutdown();
    collectGarbage();
  }
}

function envNumbers(name: string): number[] | undefined {
  return process.env[name]?.split(",").map(Number);
}

export const scaleKeys: BenchCase = {
  name: "scale-keys",
  title: "ns per decision at 1k, 100k and 1M keys (families)",
  description:
    "the first decision on new subjects (creation included), then a family (no setPolicy) walked over 1k, 100k and 1M keys by 1 and 16 callers, 1 and 3 windows: resil local-only against RateLimiterMemory (both per process), then resil on a MemoryStore alone; every key seen once before the samples",
  async run(opts) {
    // BENCH_SCALE_SIZES=1000000, BENCH_SCALE_WINDOWS=1, BENCH_SCALE_PARTS=local narrow a run
    const sizes =
      envNumbers("BENCH_SCALE_SIZES") ?? (opts.smoke ? [1_000, 10_000] : [1_000, 100_000, 1_000_000]);
    const windowCounts = (envNumbers("BENCH_SCALE_WINDOWS") ?? [1, 3]).filter((w) => w === 1 || w === 3);
    const parts = process.env.BENCH_SCALE_PARTS?.split(",") ?? ["first", "local", "synced"];
    const rows: Row[] = parts.includes("first") ? await firstRows(opts) : [];
    for (const count of sizes) {
      if (parts.includes("local")) {
        for (const windows of windowCounts) rows.push(...(await localRows(opts, count, windows as 1 | 3)));
      }
      if (parts.includes("synced")) rows.push(...(await syncedRows(opts, count)));
    }
    return rows;
  },
};
