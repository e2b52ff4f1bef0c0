import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { serverBinaries } from "./binary.js";
import { freePort } from "./ports.js";
import { rawCommand } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";

const run = promisify(execFile);

/** A 3-master Redis Cluster of private servers (no replicas), every slot assigned. */
export interface RedisClusterHandle {
  readonly nodes: readonly RedisServer[];
  /** `[{ host, port }]` of the masters, the form cluster clients take as seeds. */
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  /** Stops every node by PID and removes their directories. */
  stop(): Promise<void>;
}

async function clusterState(port: number): Promise<string> {
  try {
    const info = await rawCommand(port, ["CLUSTER", "INFO"], 1000);
    return /cluster_state:(\w+)/.exec(info)?.[1] ?? "unknown";
  } catch {
    return "unreachable";
  }
}

/**
 * Starts `masters` (default 3) cluster-enabled servers on free ports (each with its own dir and
 * nodes.conf), joins them with `redis-cli --cluster create`, and waits until every node says
 * cluster_state:ok.
 */
export async function startCluster(masters = 3, readyTimeoutMs = 30_000): Promise<RedisClusterHandle> {
  const { cli } = serverBinaries();
  if (!cli) throw new Error("testkit: redis-cli (or valkey-cli) is needed to create a Redis Cluster");
  const nodes: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort(10_000);
      nodes.push(
        await startRedis({
          controllable: true,
          port,
          args: [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            "5000",
          ],
        }),
      );
    }
    await run(
      cli,
      [
        "--cluster",
        "create",
        ...nodes.map((n) => `${n.host}:${n.port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      { timeout: readyTimeoutMs },
    );
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      const states = await Promise.all(nodes.map((n) => clusterState(n.port)));
      if (states.every((s) => s === "ok")) break;
      if (Date.now() > deadline) throw new Error(`testkit: cluster not ready: ${states.join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, seeds: nodes.map((n) => ({ host: n.host, port: n.port })), stop };
}
