import { statsRow, unavailableRow } from "../harness.js";
import { Child } from "../http/children.js";
import type { LoadResult } from "../http/load-main.js";
import type { VariantName } from "../http/server-main.js";
import { privateRedis } from "../redis.js";
import type { BenchCase, Row, RunOptions } from "../types.js";

interface Variant {
  name: VariantName;
  label: string;
  /** What its rows are compared with: the bare server of the same stack. */
  floor: "bare-node" | "bare-express";
  redis: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: "bare-node", label: "bare node:http", floor: "bare-node", redis: false },
  { name: "bare-express", label: "bare express", floor: "bare-express", redis: false },
  {
    name: "ours-node-local",
    label: "ours, node:http core, no store (in-process)",
    floor: "bare-node",
    redis: false,
  },
  { name: "ours-node-memory", label: "ours, node:http core, MemoryStore", floor: "bare-node", redis: false },
  { name: "rlf-memory", label: "rate-limiter-flexible memory, node:http", floor: "bare-node", redis: false },
  {
    name: "ours-express-local",
    label: "ours, Express middleware, no store (in-process)",
    floor: "bare-express",
    redis: false,
  },
  {
    name: "ours-express-memory",
    label: "ours, Express middleware, MemoryStore",
    floor: "bare-express",
    redis: false,
  },
  { name: "erl-memory", label: "express-rate-limit memory", floor: "bare-express", redis: false },
  { name: "ours-node-redis", label: "ours, node:http core, Redis", floor: "bare-node", redis: true },
  { name: "rlf-redis", label: "rate-limiter-flexible Redis, node:http", floor: "bare-node", redis: true },
  {
    name: "ours-express-redis",
    label: "ours, Express middleware, Redis",
    floor: "bare-express",
    redis: true,
  },
  { name: "erl-redis", label: "express-rate-limit + rate-limit-redis", floor: "bare-express", redis: true },
];

const CONNECTIONS = 50;

interface Measured {
  row: Row;
  reqPerS: number;
}

const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits });
const rowId = (v: string, keys: number, deny: boolean) => `${v}-${keys}-${deny ? "deny90" : "admit"}`;
const modeLabel = (deny: boolean) => (deny ? "90 % denied" : "all admitted");

async function measure(
  server: Child,
  load: Child,
  port: number,
  v: Variant,
  keys: number,
  deny: boolean,
  opts: RunOptions,
  first: boolean,
): Promise<Measured> {
  const tag = `${v.name}-${keys}-${deny ? "d" : "a"}-${process.pid}`;
  await server.request({ op: "configure", scenario: { keys, deny, tag } }, 180_000);
  const run = (durationS: number) =>
    load.request<{ id: number; ok: boolean; result: LoadResult }>({
      op: "load",
      port,
      keys,
      deny,
      durationS,
      connections: CONNECTIONS,
    });
  // warm-up; the first scenario of a server process also warms its JIT (Express needs more than 0.4 s:
  // its first row used to read 1.3 to 1.9x slower than the same server a scenario later)
  await run(opts.smoke ? 0.1 : first ? 2 : 0.4);
  type Stats = { id: number; ok: boolean; stats: Record<string, number> | null };
  const stats0 = (await server.request<Stats>({ op: "stats" })).stats;
  const cpu0 = (await server.request<{ id: number; ok: boolean; cpuUs: number }>({ op: "cpu" })).cpuUs;
  const { result } = await run(opts.smoke ? 0.2 : 1.2);
  const cpu1 = (await server.request<{ id: number; ok: boolean; cpuUs: number }>({ op: "cpu" })).cpuUs;
  const stats1 = (await server.request<Stats>({ op: "stats" })).stats;
  const reqPerS = result.requests / result.seconds;
  const cpuPerReq = (cpu1 - cpu0) / Math.max(1, result.requests);
  const deniedPct = (100 * result.non2xx) / Math.max(1, result.requests);
  // ours on a store: key-syncs and round trips per request (what the store costs the server)
  const per = (k: string) => ((stats1?.[k] ?? 0) - (stats0?.[k] ?? 0)) / Math.max(1, result.requests);
  const syncs =
    v.redis && stats1 ? `; ${fmt(per("keySyncs"), 2)} key-syncs, ${fmt(per("rounds"), 3)} rounds/req` : "";
  const note = `p99 ${fmt(result.p99Ms, 1)} ms; ${fmt(cpuPerReq, 1)} µs server CPU/req; ${fmt(deniedPct, 1)} % denied${syncs}${result.errors > 0 ? `; ${result.errors} errors` : ""}`;
  const label = `${v.label}, ${fmt(keys)} keys, ${modeLabel(deny)}`;
  return { row: statsRow(rowId(v.name, keys, deny), label, "req/s", [reqPerS], note), reqPerS };
}

export const http: BenchCase = {
  name: "http",
  title: "HTTP servers with rate limiting (requests per second)",
  description: `${CONNECTIONS} keep-alive connections (a raw HTTP/1.1 client in its own process) against a server in its own process; keys in x-key walked in order; every request admitted, or 90 % on keys already over a 1-an-hour limit; ratios to the bare server of the same stack`,
  async run(opts) {
    const keyCounts = opts.smoke
      ? [100]
      : (process.env.BENCH_HTTP_KEYS?.split(",").map(Number) ?? [100, 10_000, 100_000]);
    const redis = await privateRedis();
    const load = Child.start("load-main.ts", []);
    await load.ready;
    const measured = new Map<string, Measured>();
    const rows: Row[] = [];
    try {
      // BENCH_HTTP_VARIANTS=a,b limits a run to some variants (while tuning one of them).
      const only = process.env.BENCH_HTTP_VARIANTS?.split(",");
      for (const v of VARIANTS.filter((x) => only === undefined || only.includes(x.name))) {
        const modes = v.name.startsWith("bare") ? [false] : [false, true];
        if (v.redis && typeof redis === "string") {
          for (const keys of keyCounts)
            for (const deny of modes)
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
        const server = Child.start("server-main.ts", [
          v.name,
          String(typeof redis === "string" ? 0 : redis.port),
        ]);
        try {
          const { port } = (await server.ready) as unknown as { port: number };
          let first = true;
          for (const keys of keyCounts) {
            for (const deny of modes) {
              const m = await measure(server, load, port, v, keys, deny, opts, first);
              first = false;
              measured.set(rowId(v.name, keys, deny), m);
              rows.push(m.row);
            }
          }
          await server.request({ op: "stop" }).catch(() => undefined);
        } finally {
          server.kill();
        }
      }
    } finally {
      load.kill();
      if (typeof redis !== "string") await redis.stop();
    }
    // Ratios to the bare server of the same stack, measured in this run with the same keys.
    for (const row of rows) {
      const v = VARIANTS.find((x) => row.id.startsWith(`${x.name}-`));
      const keys = Number(row.id.split("-").at(-2));
      const floor = measured.get(rowId(v!.floor, keys, false));
      const m = measured.get(row.id);
      if (m && floor && !row.id.startsWith("bare"))
        row.note = `${(m.reqPerS / floor.reqPerS).toFixed(2)}x ${v!.floor}; ${row.note}`;
    }
    return rows;
  },
};
