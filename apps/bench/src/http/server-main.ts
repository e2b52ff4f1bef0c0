// The HTTP case's server process: one variant, reconfigured per scenario over IPC; reports its CPU time.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import type { Scenario } from "./keys.js";
import { type Listener, limiterStats, oursExpress, oursNode, type StoreKind } from "./ours.js";
import { bareExpress, bareNode, erl, expressFloor, nodeFloor, rlf } from "./peers.js";

export type VariantName =
  | "bare-node"
  | "node-floor"
  | "bare-express"
  | "express-noop"
  | "express-headers"
  | "express-floor"
  | "ours-node-local"
  | "ours-node-memory"
  | "ours-node-redis"
  | "ours-express-local"
  | "ours-express-memory"
  | "ours-express-redis"
  | "erl-memory"
  | "erl-redis"
  | "rlf-memory"
  | "rlf-redis"
  | "twin-rlf-memory"
  | "twin-bare-express";

export type ServerRequest = { id: number } & (
  | { op: "configure"; scenario: Scenario }
  | { op: "cpu" }
  | { op: "stats" }
  | { op: "stop" }
);

const [variant, redisPort] = [process.argv[2] as VariantName, Number(process.argv[3] ?? 0)];
const redis = variant.endsWith("redis")
  ? new Redis(redisPort, "127.0.0.1", { maxRetriesPerRequest: 1 })
  : undefined;
redis?.on("error", () => {});

let current: Listener = (_req, res) => {
  res.statusCode = 503;
  res.end("not configured");
};
let closeCurrent = async () => {};

function storeKind(): StoreKind {
  if (redis !== undefined) return redis;
  return variant.endsWith("local") ? "local" : "memory";
}

async function build(s: Scenario): Promise<[Listener, () => Promise<void>]> {
  const noop = async () => {};
  switch (variant) {
    case "bare-node":
      return [bareNode(), noop];
    case "node-floor":
      return [nodeFloor(s), noop];
    case "bare-express":
    case "twin-bare-express":
      return [bareExpress(), noop];
    case "express-noop":
      return [bareExpress("layer"), noop];
    case "express-headers":
      return [bareExpress("headers"), noop];
    case "express-floor":
      return [expressFloor(s), noop];
    case "ours-node-local":
    case "ours-node-memory":
    case "ours-node-redis":
      return oursNode(s, storeKind());
    case "ours-express-local":
    case "ours-express-memory":
    case "ours-express-redis":
      return oursExpress(s, storeKind());
    case "erl-memory":
    case "erl-redis":
      return erl(s, redis);
    case "rlf-memory":
    case "rlf-redis":
    case "twin-rlf-memory":
      return rlf(s, redis);
  }
}

const server = createServer((req, res) => current(req, res));
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

process.on("message", async (m: ServerRequest) => {
  try {
    if (m.op === "configure") {
      await scenarioProfile.end();
      await closeCurrent();
      [current, closeCurrent] = await build(m.scenario);
      scenarioProfile.arm(m.scenario);
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ id: m.id, ok: true });
    } else if (m.op === "stats") {
      process.send!({ id: m.id, ok: true, stats: limiterStats() ?? null });
    } else if (m.op === "cpu") {
      await scenarioProfile.begin();
      await allocSampling();
      await cpuProfile();
      // PROF_MARK=1 (dev): marks the measured window's ends among --trace-gc lines
      if (process.env.PROF_MARK === "1") console.log(`PROF_MARK ${performance.now().toFixed(0)}`);
      const u = process.cpuUsage();
      process.send!({ id: m.id, ok: true, cpuUs: u.user + u.system });
    } else {
      await scenarioProfile.end();
      await closeCurrent();
      server.closeAllConnections();
      server.close();
      redis?.disconnect();
      process.send!({ id: m.id, ok: true });
      process.exit(0);
    }
  } catch (err) {
    process.send!({ id: m.id, ok: false, error: err instanceof Error ? err.stack : String(err) });
  }
});
type Session = import("node:inspector/promises").Session;

/**
 * A dev profile of the measured window (between the two "cpu" asks), when `file` is set: `start` on
 * the first ask, then `stop` on the second, its result written to `file`.
 */
function windowProfile(
  file: string | undefined,
  start: (s: Session) => Promise<unknown>,
  stop: (s: Session) => Promise<unknown>,
): () => Promise<void> {
  let session: Session | undefined;
  return async () => {
    if (!file) return;
    if (session === undefined) {
      const { Session } = await import("node:inspector/promises");
      session = new Session();
      session.connect();
      await start(session);
      return;
    }
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, JSON.stringify(await stop(session)));
  };
}

// PROF_ALLOC=<file>: allocations sampled (collected objects included), as a .heapprofile.
// PROF_ALLOC_PROMOTED=1 keeps only what no young-generation collection freed (run with
// PROF_FLAGS=--expose-gc so the young garbage left at the end is collected first).
const allocSampling = windowProfile(
  process.env.PROF_ALLOC,
  (s) =>
    s.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: process.env.PROF_ALLOC_PROMOTED !== "1",
    } as never),
  async (s) => {
    const gc = (globalThis as { gc?: (options: { type: "minor" }) => void }).gc;
    gc?.({ type: "minor" });
    gc?.({ type: "minor" });
    return ((await s.post("HeapProfiler.stopSampling")) as { profile: unknown }).profile;
  },
);
// PROF_CPU=<file>: a .cpuprofile of the measured window only, without the setup --cpu-prof records.
const startCpu = async (s: Session) => {
  await s.post("Profiler.enable");
  await s.post("Profiler.start");
};
const stopCpu = async (s: Session) => ((await s.post("Profiler.stop")) as { profile: unknown }).profile;
const cpuProfile = windowProfile(process.env.PROF_CPU, startCpu, stopCpu);
/**
 * PROF_SCENARIO_DIR=<dir> (dev, with the bench): a .cpuprofile of each scenario as the case runs it,
 * from its first measured sample to the next scenario (the other servers' turns show as idle), named
 * by variant and scenario; PROF_SCENARIO_KEYS=100000 limits it to scenarios with that many keys.
 */
const scenarioProfile = (() => {
  const dir = process.env.PROF_SCENARIO_DIR;
  const keys = process.env.PROF_SCENARIO_KEYS;
  let armed: string | undefined;
  let session: Session | undefined;
  let file = "";
  return {
    arm(s: Scenario) {
      if (dir && (keys === undefined || Number(keys) === s.keys))
        armed = `${variant}-${s.keys}-${s.deny ? "d" : "a"}`;
    },
    async begin() {
      if (armed === undefined) return;
      const { Session } = await import("node:inspector/promises");
      session = new Session();
      session.connect();
      await startCpu(session);
      file = `${dir}/${armed}.cpuprofile`;
      armed = undefined;
    },
    async end() {
      armed = undefined;
      if (session === undefined) return;
      const { writeFileSync } = await import("node:fs");
      writeFileSync(file, JSON.stringify(await stopCpu(session)));
      session.disconnect();
      session = undefined;
    },
  };
})();
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true, port: (server.address() as AddressInfo).port });
