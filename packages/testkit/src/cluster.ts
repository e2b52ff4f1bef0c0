import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { serverBinaries } from "./binary.js";
import { freePort } from "./ports.js";
import { rawCommand } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";

const run = promisify(execFile);

/** A Redis Cluster of private servers (3 masters by default, no replicas), every slot assigned. */
export interface RedisClusterHandle {
  /** Every node: the masters first, then their replicas (as `redis-cli --cluster create` pairs them). */
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

/** Options of `startCluster`. */
export interface ClusterOptions {
  /** Replicas per master (default 0). */
  replicas?: number;
  /** cluster-node-timeout: how long a master may be unreachable before its replica takes over (default 5000). */
  nodeTimeoutMs?: number;
}

/** The replication link of a replica is up (it holds its master's data). */
async function replicaLinked(port: number): Promise<boolean> {
  try {
    const info = await rawCommand(port, ["INFO", "replication"], 1000);
    return !info.includes("role:slave") || info.includes("master_link_status:up");
  } catch {
    return false;
  }
}

/**
 * Starts `masters` (default 3) cluster-enabled servers on free ports, and `replicas` per master
 * (each with its own dir and nodes.conf), joins them with `redis-cli --cluster create`, and waits
 * until every node says cluster_state:ok and every replica's link to its master is up.
 */
export async function startCluster(
  masters = 3,
  readyTimeoutMs = 30_000,
  options: ClusterOptions = {},
): Promise<RedisClusterHandle> {
  const replicas = options.replicas ?? 0;
  const { cli } = serverBinaries();
  if (!cli) throw new Error("testkit: redis-cli (or valkey-cli) is needed to create a Redis Cluster");
  const nodes: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
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
            String(options.nodeTimeoutMs ?? 5000),
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
        String(replicas),
        "--cluster-yes",
      ],
      { timeout: readyTimeoutMs },
    );
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      const states = await Promise.all(nodes.map((n) => clusterState(n.port)));
      const linked = await Promise.all(nodes.map((n) => replicaLinked(n.port)));
      if (states.every((s) => s === "ok") && linked.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error(`testkit: cluster not ready: ${states.join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const seeds = nodes.slice(0, masters).map((n) => ({ host: n.host, port: n.port }));
  return { nodes, seeds, stop };
}

/** A node's `ROLE` reply (raw), or "unreachable". */
export async function role(port: number): Promise<string> {
  return rawCommand(port, ["ROLE"], 1000).catch(() => "unreachable");
}

/** The replica of `master`: its ROLE names the master's port. */
export async function replicaOf(
  nodes: readonly RedisServer[],
  master: RedisServer,
): Promise<RedisServer | undefined> {
  for (const n of nodes) {
    const r = await role(n.port);
    if (r.includes("slave") && r.includes(`:${master.port}\r\n`)) return n;
  }
  return undefined;
}
