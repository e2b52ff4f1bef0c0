import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Limiter } from "@resil/limit";
import { sleep } from "./sleep.js";

/** Admits and checks of one Unix second: `[second, admitted, offered]`. */
export type SecondCount = [second: number, admitted: number, offered: number];

/** What a load run measured: per-second counts (sorted by second) and every check's latency in ms (sorted). */
export interface LoadResult {
  seconds: SecondCount[];
  latencies: number[];
}

export interface LoadOptions {
  subject: string;
  /** Concurrent callers. */
  tasks: number;
  durationMs: number;
  /** Sleep after each check, per caller. */
  pauseMs: number;
  /** Epoch ms to start at (callers sleep until then); now when absent. */
  startAt?: number;
  /** Upper bound on checks per caller, whatever the duration (default 10 000). */
  maxChecksPerTask?: number;
}

/** Milliseconds until the wall clock is `ms` into a second, at least `minMs` from now. */
export function msUntilIntoSecond(ms: number, minMs = 0): number {
  const now = Date.now();
  let wait = (ms - (now % 1000) + 1000) % 1000;
  while (wait < minMs) wait += 1000;
  return wait;
}

let collect: (() => void) | undefined;

/**
 * A full garbage collection now. The test runner's start-up garbage otherwise comes due as a 25-40 ms
 * scavenge in the middle of a timed run (measured), which no limiter can answer within 15 ms.
 */
export function settleHeap(): void {
  if (collect === undefined) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}

/** `tasks` callers for `durationMs`, each a check on the next replica in turn then `pauseMs` of sleep. */
export async function driveLoad(limiters: readonly Limiter[], o: LoadOptions): Promise<LoadResult> {
  settleHeap();
  if (o.startAt !== undefined) await sleep(Math.max(0, o.startAt - Date.now()));
  const seconds = new Map<number, SecondCount>();
  const latencies: number[] = [];
  const end = Date.now() + o.durationMs;
  const cap = o.maxChecksPerTask ?? 10_000;
  let turn = 0;
  await Promise.all(
    Array.from({ length: o.tasks }, async () => {
      for (let i = 0; i < cap && Date.now() < end; i++) {
        const limiter = limiters[turn++ % limiters.length]!;
        const t0 = performance.now();
        const d = await limiter.check(o.subject);
        latencies.push(performance.now() - t0);
        const s = Math.floor(Date.now() / 1000);
        const cell = seconds.get(s) ?? [s, 0, 0];
        if (d.kind === "allow") cell[1]++;
        cell[2]++;
        seconds.set(s, cell);
        await sleep(o.pauseMs);
      }
    }),
  );
  return {
    seconds: [...seconds.values()].sort((a, b) => a[0] - b[0]),
    latencies: latencies.sort((a, b) => a - b),
  };
}

/** Several replicas' results as one: counts summed by Unix second, latencies pooled. */
export function mergeLoads(results: readonly LoadResult[]): LoadResult {
  const seconds = new Map<number, SecondCount>();
  for (const r of results) {
    for (const [s, admitted, offered] of r.seconds) {
      const cell = seconds.get(s) ?? [s, 0, 0];
      cell[1] += admitted;
      cell[2] += offered;
      seconds.set(s, cell);
    }
  }
  return {
    seconds: [...seconds.values()].sort((a, b) => a[0] - b[0]),
    latencies: results.flatMap((r) => r.latencies).sort((a, b) => a - b),
  };
}

/** The value at quantile `p` of an ascending list (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

/** One line: per-second (admitted, offered) and check latency p50 / p99 / max. */
export function formatLoad(label: string, r: LoadResult): string {
  const l = r.latencies;
  const pairs = r.seconds.map(([, admitted, offered]) => [admitted, offered]);
  return (
    `${label}: per-second (admitted, offered) ${JSON.stringify(pairs)}; check latency ` +
    `p50=${percentile(l, 0.5).toFixed(3)}ms p99=${percentile(l, 0.99).toFixed(3)}ms ` +
    `max=${(l.at(-1) ?? 0).toFixed(3)}ms (n=${l.length})`
  );
}
