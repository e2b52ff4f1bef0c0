// `--baseline DIR`: the hot-path rows of another checkout's @resil/limit (for example the commit before
// a refactor, in a git worktree), measured in the same process and run as the current code.
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { limitEntry } from "./built.js";
import type { Variant } from "./harness.js";
import { CALLERS, KeyWalk, splitCallers, walks } from "./keys.js";
import { BENCH_POLICY, credit } from "./resil-setup.js";

/** The environment variable the parent sets for its case processes. */
export const BASELINE_ENV = "RESIL_BENCH_BASELINE";

/** What the rows need of the other checkout's Limiter: kept structural, the class is another module's. */
interface BaselineLimiter {
  start(): Promise<void>;
  shutdown(): Promise<void>;
  setPolicy(subject: string, config: typeof BENCH_POLICY): void;
  tryCheck(subject: string): { kind: string } | undefined;
  tryAdmit(subject: string): boolean | undefined;
  check(subject: string): Promise<{ kind: string }>;
}

interface BaselineModule {
  Limiter: new (options: object, store: unknown) => BaselineLimiter;
  MemoryStore: new (clock: unknown) => unknown;
  systemClock: unknown;
}

export interface Baseline {
  name: string;
  limiter: BaselineLimiter;
  close(): Promise<void>;
}

/** The other checkout's Limiter on its own MemoryStore, started and credited like the current one. */
export async function loadBaseline(keys: readonly string[]): Promise<Baseline | undefined> {
  const dir = process.env[BASELINE_ENV];
  if (!dir) return undefined;
  const entry = pathToFileURL(limitEntry(dir)).href;
  const mod = (await import(entry)) as BaselineModule;
  const limiter = new mod.Limiter(
    { service: "bench-baseline", podId: "bench-1" },
    new mod.MemoryStore(mod.systemClock),
  );
  await limiter.start();
  for (const k of keys) limiter.setPolicy(k, BENCH_POLICY);
  await credit(limiter as never, keys);
  return { name: basename(dir), limiter, close: () => limiter.shutdown() };
}

// The loops are written out again (not shared with variants.ts) so each call site sees one Limiter class.

export function baselineTryCheckOne(b: Baseline, keys: readonly string[]): Variant {
  const walk = new KeyWalk(keys);
  const limiter = b.limiter;
  return {
    id: "baseline-trycheck",
    label: `baseline (${b.name}): Limiter.tryCheck`,
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        const k = walk.next();
        const d = limiter.tryCheck(k) ?? (await limiter.check(k));
        if (d.kind !== "deny") ok++;
      }
      return ok;
    },
  };
}

export function baselineTryAdmitOne(b: Baseline, keys: readonly string[]): Variant {
  const walk = new KeyWalk(keys);
  const limiter = b.limiter;
  return {
    id: "baseline-tryadmit",
    label: `baseline (${b.name}): Limiter.tryAdmit`,
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        const k = walk.next();
        const admitted = limiter.tryAdmit(k) ?? (await limiter.check(k)).kind !== "deny";
        if (admitted) ok++;
      }
      return ok;
    },
  };
}

export function baselineTryCheckCallers(b: Baseline, keys: readonly string[]): Variant {
  const cursors = walks(keys, CALLERS);
  const limiter = b.limiter;
  return {
    id: "baseline-trycheck",
    label: `baseline (${b.name}): Limiter.tryCheck`,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          const k = walk.next();
          const d = limiter.tryCheck(k) ?? (await limiter.check(k));
          if (d.kind !== "deny") ok++;
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}

export function baselineTryAdmitCallers(b: Baseline, keys: readonly string[]): Variant {
  const cursors = walks(keys, CALLERS);
  const limiter = b.limiter;
  return {
    id: "baseline-tryadmit",
    label: `baseline (${b.name}): Limiter.tryAdmit`,
    chunk: (n) =>
      splitCallers(n, CALLERS, async (t, ops) => {
        const walk = cursors[t]!;
        let ok = 0;
        for (let i = 0; i < ops; i++) {
          const k = walk.next();
          const admitted = limiter.tryAdmit(k) ?? (await limiter.check(k)).kind !== "deny";
          if (admitted) ok++;
          if ((i & 63) === 63) await null;
        }
        return ok;
      }),
  };
}
