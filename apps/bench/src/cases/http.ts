import { median, statsRow, unavailableRow } from "../harness.js";
import { Child, pin } from "../http/children.js";
import type { Scenario } from "../http/keys.js";
import type { LoadRequest, LoadResult } from "../http/load-main.js";
import type { VariantName } from "../http/server-main.js";
import { privateRedis } from "../redis.js";
import type { BenchCase, Row } from "../types.js";

interface Variant {
  name: VariantName;
  label: string;
  /** What its rows are compared with: the bare server of the same stack. */
  floor: "bare-node" | "bare-express";
  redis: boolean;
  /** Ours (and an A/A twin): the server of the same kind it is compared with, pass by pass. */
  peer?: VariantName;
}

const VARIANTS: readonly Variant[] = [
  { name: "bare-node", label: "bare node:http", floor: "bare-node", redis: false },
  {
    name: "node-floor",
    label:
      "node:http + the least a limiter with headers does (a Map of counts, one add, 3 headers; a control)",
    floor: "bare-node",
    redis: false,
  },
  { name: "bare-express", label: "bare express", floor: "bare-express", redis: false },
  {
    name: "express-noop",
    label: "bare express + a no-op middleware (what one more layer costs)",
    floor: "bare-express",
    redis: false,
  },
  {
    name: "express-headers",
    label:
      "bare express + the three X-RateLimit-* headers ours sends by default, fixed values (what sending them costs)",
    floor: "bare-express",
    redis: false,
  },
  {
    name: "express-floor",
    label:
      "express + the least a limiting middleware with headers does (one more layer: a Map of counts, one add, 3 headers; a control)",
    floor: "bare-express",
    redis: false,
    peer: "bare-express",
  },
  {
    name: "ours-node-local",
    label: "ours, node:http core, no store (in-process)",
    floor: "bare-node",
    redis: false,
    peer: "rlf-memory",
  },
  {
    name: "ours-node-memory",
    label: "ours, node:http core, MemoryStore",
    floor: "bare-node",
    redis: false,
    peer: "rlf-memory",
  },
  { name: "rlf-memory", label: "rate-limiter-flexible memory, node:http", floor: "bare-node", redis: false },
  {
    name: "ours-express-local",
    label: "ours, Express middleware, no store (in-process)",
    floor: "bare-express",
    redis: false,
    peer: "erl-memory",
  },
  {
    name: "ours-express-memory",
    label: "ours, Express middleware, MemoryStore",
    floor: "bare-express",
    redis: false,
    peer: "erl-memory",
  },
  { name: "erl-memory", label: "express-rate-limit memory", floor: "bare-express", redis: false },
  {
    name: "ours-node-redis",
    label: "ours, node:http core, Redis",
    floor: "bare-node",
    redis: true,
    peer: "rlf-redis",
  },
  { name: "rlf-redis", label: "rate-limiter-flexible Redis, node:http", floor: "bare-node", redis: true },
  {
    name: "ours-express-redis",
    label: "ours, Express middleware, Redis",
    floor: "bare-express",
    redis: true,
    peer: "erl-redis",
  },
  { name: "erl-redis", label: "express-rate-limit + rate-limit-redis", floor: "bare-express", redis: true },
  // A/A controls: a second server identical to one in its block, so the run shows how far two
  // servers that cannot differ do differ (what a ratio near 1 can mean)
  {
    name: "twin-rlf-memory",
    label: "rate-limiter-flexible memory, node:http, a second identical server (an A/A control)",
    floor: "bare-node",
    redis: false,
    peer: "rlf-memory",
  },
  {
    name: "twin-bare-express",
    label: "bare express, a second identical server (an A/A control)",
    floor: "bare-express",
    redis: false,
    peer: "bare-express",
  },
];

/**
 * Variants sampled side by side: a block holds a peer beside each server compared with it (a target's
 * pair, ours beside the peer of its kind); a block's servers take turns within each sample (PARTS),
 * whatever the host does a few seconds later. A block's passes run one after another (blocksOf), so
 * a server meets its keys again about as soon as under steady load, not after every other block.
 */
const BLOCKS: readonly (readonly VariantName[])[] = [
  ["bare-node"],
  ["ours-node-local", "rlf-memory", "ours-node-memory", "node-floor", "twin-rlf-memory"],
  ["ours-node-redis", "rlf-redis"],
  ["express-noop", "express-headers"],
  [
    "bare-express",
    "ours-express-local",
    "erl-memory",
    "ours-express-memory",
    "express-floor",
    "twin-bare-express",
  ],
  ["ours-express-redis", "erl-redis"],
];

const CONNECTIONS = 50;
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** Samples of each variant per scenario, one per pass over the variants (BENCH_HTTP_PASSES while tuning). */
const PASSES = Number(process.env.BENCH_HTTP_PASSES ?? 5);

/** Node flags for every server alike, e.g. BENCH_NODE_FLAGS="--max-semi-space-size=64" (none by default). */
const SERVER_FLAGS = process.env.BENCH_NODE_FLAGS?.split(" ").filter((f) => f.length > 0) ?? [];
const FIRST_WARM_S = 2;
const WARM_S = 0.3;
/** Seconds per sample: an Express server answers a sixth as many requests, so it is sampled longer. */
const sampleS = (v: Variant) => (v.floor === "bare-express" ? 2 : 0.8);
/** A sample is taken in this many parts, the servers of its block taking turns (ABBA) between parts. */
const PARTS = 4;

// the bare servers and the two Express cost controls limit nothing: one mode, and no state per key
const limits = (v: Variant) =>
  !v.name.startsWith("bare") &&
  v.name !== "express-noop" &&
  v.name !== "express-headers" &&
  v.name !== "twin-bare-express";
const modesOf = (v: Variant) => (limits(v) ? [false, true] : [false]);
/**
 * BENCH_HTTP_ORDER=turns: every block sampled in each pass, in rotating order, with no lead-in (the
 * order before 6 December: at 100,000 keys a server meets a key again only minutes later).
 */
const TURNS = process.env.BENCH_HTTP_ORDER === "turns";
/** A lead-in walk over every key once stops after this long (a server that answers too slowly). */
const LEAD_IN_MAX_S = 60;
/** The lead-in's turns: each server of a block walks this share of the keys, then the next one does. */
const LEAD_IN_PARTS = 8;

/** BENCH_HTTP_EVENTS=1: the case's phases go to stderr, timed like the servers' outage lines. */
const mark = (what: string) => {
  if (process.env.BENCH_HTTP_EVENTS)
    process.stderr.write(`${new Date().toISOString().slice(11, 23)} [case] ${what}\n`);
};

/** One sample of one variant in one scenario. */
interface Sample {
  reqPerS: number;
  cpuPerReq: number;
  p99Ms: number;
  deniedPct: number;
  errors: number;
  keySyncs: number;
  rounds: number;
  requests: number;
  seconds: number;
  /** How long ago the server last got the keys it got again (median, seconds; NaN: none again). */
  revisitS: number;
}

/** One sample from its parts: their requests over their seconds; p99 the parts' median. */
function combine(parts: readonly Sample[]): Sample {
  const sum = (f: keyof Sample) => parts.reduce((a, p) => a + p[f], 0);
  const requests = sum("requests");
  const n = Math.max(1, requests);
  const weighted = (f: "cpuPerReq" | "deniedPct") => parts.reduce((a, p) => a + p[f] * p.requests, 0) / n;
  return {
    reqPerS: requests / sum("seconds"),
    cpuPerReq: weighted("cpuPerReq"),
    p99Ms: median(parts.map((p) => p.p99Ms)),
    deniedPct: weighted("deniedPct"),
    errors: sum("errors"),
    keySyncs: sum("keySyncs"),
    rounds: sum("rounds"),
    requests,
    seconds: sum("seconds"),
    revisitS: median(parts.map((p) => p.revisitS).filter((x) => Number.isFinite(x))),
  };
}

const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits });
const rowId = (v: string, keys: number, deny: boolean) => `${v}-${keys}-${deny ? "deny90" : "admit"}`;
const modeLabel = (deny: boolean) => (deny ? "90 % denied" : "all admitted");

type Stats = { id: number; ok: boolean; stats: Record<string, number> | null };
type Cpu = { id: number; ok: boolean; cpuUs: number };

/** One load run against `port`: `durationS` of the walk, or `most` requests of it (at most that long). */
function loadRun(load: Child, port: number, keys: number, deny: boolean, durationS: number, most?: number) {
  // the child's default 120 s timeout outlasts the longest run (a lead-in: LEAD_IN_MAX_S)
  return load.request<{ id: number; ok: boolean; result: LoadResult }>({
    op: "load" satisfies LoadRequest["op"],
    port,
    keys,
    deny,
    durationS,
    connections: CONNECTIONS,
    most,
  });
}

/** Loads `server` for `seconds` after a warm-up, and reads its CPU time and limiter counters around it. */
async function sample(
  server: Child,
  load: Child,
  port: number,
  keys: number,
  deny: boolean,
  warmS: number,
  seconds: number,
): Promise<Sample> {
  const run = (durationS: number) => loadRun(load, port, keys, deny, durationS);
  if (warmS > 0) await run(warmS);
  const stats0 = (await server.request<Stats>({ op: "stats" })).stats;
  const cpu0 = (await server.request<Cpu>({ op: "cpu" })).cpuUs;
  const { result } = await run(seconds);
  const cpu1 = (await server.request<Cpu>({ op: "cpu" })).cpuUs;
  const stats1 = (await server.request<Stats>({ op: "stats" })).stats;
  const n = Math.max(1, result.requests);
  const delta = (k: string) => (stats1?.[k] ?? 0) - (stats0?.[k] ?? 0);
  return {
    reqPerS: result.requests / result.seconds,
    cpuPerReq: (cpu1 - cpu0) / n,
    p99Ms: result.p99Ms,
    deniedPct: (100 * result.non2xx) / n,
    errors: result.errors,
    keySyncs: delta("keySyncs"),
    rounds: delta("rounds"),
    requests: result.requests,
    seconds: result.seconds,
    // NaN crossed the IPC channel as null
    revisitS: result.revisitS ?? Number.NaN,
  };
}

/**
 * Walks every key once against each of `servers` (not measured), in LEAD_IN_PARTS turns: their samples
 * then meet keys they got one walk earlier, as a server under steady load does (not keys last got
 * minutes ago), and each server's keys are as old as the others' (a server walked first, in one go,
 * met keys up to twice as old as the last one's: 26 s against 14 s at 100,000 keys).
 */
async function leadIn(load: Child, servers: readonly Running[], keys: number, deny: boolean): Promise<void> {
  for (let part = 0; part < LEAD_IN_PARTS; part++) {
    const most = Math.ceil((keys * (part + 1)) / LEAD_IN_PARTS) - Math.ceil((keys * part) / LEAD_IN_PARTS);
    for (const r of servers) {
      pin(r.server.pid, SERVER_CPU);
      await loadRun(load, r.port, keys, deny, LEAD_IN_MAX_S / LEAD_IN_PARTS, most);
      pin(r.server.pid, LOAD_CPU);
    }
  }
}

/**
 * A warning for the note when a sample did not deny the scenario's share (90 % on the denied keys, none
 * when all are admitted): that row measured another scenario (a deny window that ended mid-run).
 */
export function offShare(deny: boolean, samples: readonly { deniedPct: number }[]): string {
  const want = deny ? 90 : 0;
  const off = samples.filter((s) => Math.abs(s.deniedPct - want) > 5);
  if (off.length === 0) return "";
  const got = off.map((s) => fmt(s.deniedPct, 1)).join(", ");
  return `; NOT ${want} % DENIED in ${off.length} of ${samples.length} samples (${got} %): this row measures another scenario`;
}

/** A row from a variant's samples: req/s per sample; the note gives the medians of the rest. */
function rowOf(v: Variant, keys: number, deny: boolean, samples: readonly Sample[]): Row {
  const sum = (f: keyof Sample) => samples.reduce((a, s) => a + s[f], 0);
  const med = (f: keyof Sample, digits: number) => fmt(median(samples.map((s) => s[f])), digits);
  const per = (f: keyof Sample, digits: number) => fmt(sum(f) / Math.max(1, sum("requests")), digits);
  const errors = sum("errors");
  // every server of ours with a store (Redis or MemoryStore) says how often it synced
  const synced = v.redis || (v.name.startsWith("ours-") && v.name.endsWith("memory"));
  const syncs = synced ? `; ${per("keySyncs", 2)} key-syncs, ${per("rounds", 3)} rounds/req` : "";
  const revisits = samples.map((s) => s.revisitS).filter((x) => Number.isFinite(x));
  const back = revisits.length > 0 ? `; keys back after ${fmt(median(revisits), 1)} s` : "";
  const note = `p99 ${med("p99Ms", 1)} ms; ${med("cpuPerReq", 1)} µs server CPU/req; ${med("deniedPct", 1)} % denied${back}${syncs}${errors > 0 ? `; ${errors} errors` : ""}${offShare(deny, samples)}`;
  const label = `${v.label}, ${fmt(keys)} keys, ${modeLabel(deny)}`;
  const reqPerS = samples.map((s) => s.reqPerS);
  return statsRow(rowId(v.name, keys, deny), label, "req/s", reqPerS, note);
}

/** The scenario's servers by block, in BLOCKS order. */
function blocksOf<T extends { v: Variant }>(group: readonly T[]): T[][] {
  const blocks = BLOCKS.map((b) => group.filter((r) => b.includes(r.v.name))).filter((b) => b.length > 0);
  if (blocks.reduce((n, b) => n + b.length, 0) !== group.length) throw new Error("a variant is in no block");
  return blocks;
}

/** A block's order in a pass: reversed on odd passes, so each server is sampled first as often as second. */
const passOrder = <T>(block: readonly T[], pass: number): T[] =>
  pass % 2 === 1 ? [...block].reverse() : [...block];

interface Running {
  v: Variant;
  server: Child;
  port: number;
  warm: boolean;
}

export const http: BenchCase = {
  name: "http",
  title: "HTTP servers with rate limiting (requests per second)",
  description: `${CONNECTIONS} keep-alive connections (a raw HTTP/1.1 client in its own process) against a server in its own process, servers compared with each other sampled side by side as a block (${PASSES} passes of the block one after another, a sample in ${PARTS} parts, the block's servers taking turns; 0.8 s a sample, 2 s for Express; the one measured alone on a CPU where taskset can pin it); keys in x-key walked in order, the limiting servers of a block first walking every key once, taking turns every ${LEAD_IN_PARTS}th of the keys (not measured), so that each meets keys again about as soon as under steady load at its rate (the note says how soon: keys back after, median); every request admitted, or 90 % on keys already over a 1-an-hour limit; ratios to the bare server of the same stack`,
  async run(opts) {
    const keyCounts = opts.smoke
      ? [100]
      : (process.env.BENCH_HTTP_KEYS?.split(",").map(Number) ?? [100, 10_000, 100_000]);
    // BENCH_HTTP_VARIANTS=a,b limits a run to some variants (while tuning one of them).
    const only = process.env.BENCH_HTTP_VARIANTS?.split(",");
    const chosen = VARIANTS.filter((x) => only === undefined || only.includes(x.name));
    const passes = opts.smoke ? 1 : PASSES;
    const redis = await privateRedis();
    // the server being measured alone on SERVER_CPU; the load generator, Redis and the servers
    // waiting their turn on LOAD_CPU
    if (typeof redis !== "string" && redis.pid !== undefined) pin(redis.pid, LOAD_CPU);
    const load = Child.start("load-main.ts", [], LOAD_CPU);
    const running: Running[] = [];
    const rows: Row[] = [];
    try {
      await load.ready;
      const starting: Promise<void>[] = [];
      for (const v of chosen) {
        if (v.redis && typeof redis === "string") {
          for (const keys of keyCounts)
            for (const deny of modesOf(v))
              rows.push(
                unavailableRow(
                  rowId(v.name, keys, deny),
                  `${v.label}, ${fmt(keys)} keys, ${modeLabel(deny)}`,
                  "req/s",
                  redis,
                ),
              );
          continue;
        }
        const server = Child.start(
          "server-main.ts",
          [v.name, String(typeof redis === "string" ? 0 : redis.port)],
          LOAD_CPU,
          SERVER_FLAGS,
        );
        const r: Running = { v, server, port: 0, warm: false };
        running.push(r);
        // the servers start side by side: one after another they took most of a smoke run
        starting.push(
          server.ready.then((a) => {
            r.port = (a as unknown as { port: number }).port;
          }),
        );
      }
      await Promise.all(starting);
      // Every variant of a scenario is sampled in turn, pass after pass, so that the host's drift
      // reaches all of them.
      for (const keys of keyCounts) {
        for (const deny of [false, true]) {
          const group = running.filter((r) => modesOf(r.v).includes(deny));
          await load.request({ op: "prepare" satisfies LoadRequest["op"], keys, deny });
          const samples = new Map<Running, Sample[]>();
          mark(`configuring ${keys} keys, ${modeLabel(deny)}`);
          // side by side: a limiter's setup waits up to 45 s for its admits to be pushed (idle credit)
          await Promise.all(
            group.map((r) => {
              const tag = `${r.v.name}-${keys}-${deny ? "d" : "a"}-${process.pid}`;
              const scenario: Scenario = { keys, deny, tag };
              // a smoke run checks that every row is made, not what it measures
              if (opts.smoke) {
                scenario.quietMs = 300;
                scenario.awaitPushes = false;
              }
              samples.set(r, []);
              return r.server.request({ op: "configure", scenario }, 180_000);
            }),
          );
          const parts = opts.smoke ? 1 : PARTS;
          const sampleBlock = async (servers: readonly Running[], pass: number) => {
            const block = passOrder(servers, pass);
            const taken = new Map<Running, Sample[]>(block.map((r) => [r, []]));
            for (let part = 0; part < parts; part++) {
              for (const r of part % 2 === 0 ? block : [...block].reverse()) {
                pin(r.server.pid, SERVER_CPU);
                // a server's first sample also warms its JIT (Express needs more than 0.4 s)
                const warmS = part > 0 ? 0 : opts.smoke ? 0.1 : r.warm ? WARM_S : FIRST_WARM_S;
                r.warm = true;
                const seconds = (opts.smoke ? 0.2 : sampleS(r.v)) / parts;
                taken.get(r)!.push(await sample(r.server, load, r.port, keys, deny, warmS, seconds));
                pin(r.server.pid, LOAD_CPU);
              }
            }
            for (const [r, p] of taken) samples.get(r)!.push(combine(p));
          };
          const blocks = blocksOf(group);
          if (TURNS) {
            for (let pass = 0; pass < passes; pass++) {
              const k = pass % blocks.length;
              for (const servers of [...blocks.slice(k), ...blocks.slice(0, k)])
                await sampleBlock(servers, pass);
            }
          } else {
            for (const servers of blocks) {
              const names = servers.map((x) => x.v.name).join(", ");
              mark(`lead-in of ${names}`);
              await leadIn(
                load,
                servers.filter((x) => limits(x.v)),
                keys,
                deny,
              );
              mark(`sampling ${names}`);
              for (let pass = 0; pass < passes; pass++) await sampleBlock(servers, pass);
            }
          }
          for (const r of group) rows.push(rowOf(r.v, keys, deny, samples.get(r)!));
        }
      }
    } finally {
      mark("stopping the servers");
      for (const r of running) {
        await r.server.request({ op: "stop" }, 10_000).catch(() => undefined);
        r.server.kill();
      }
      load.kill();
      if (typeof redis !== "string") await redis.stop();
    }
    // Ratios to the bare server of the same stack, measured in this run with the same keys.
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const row of rows) {
      const v = VARIANTS.find((x) => row.id.startsWith(`${x.name}-`));
      const keys = Number(row.id.split("-").at(-2));
      const floor = byId.get(rowId(v!.floor, keys, false));
      if (row.available && floor?.available && !row.id.startsWith("bare"))
        row.note = `${(row.median! / floor.median!).toFixed(2)}x ${v!.floor}; ${row.note}`;
      // against its peer as the targets compare: the median of the passes' ratios
      const peer =
        v!.peer === undefined ? undefined : byId.get(rowId(v!.peer, keys, row.id.endsWith("deny90")));
      if (row.available && peer?.available && peer.values?.length === row.values?.length) {
        const paired = median(row.values!.map((x, i) => x / peer.values![i]!));
        row.note = `${paired.toFixed(2)}x ${v!.peer} pass by pass; ${row.note}`;
      }
    }
    return rows;
  },
};
