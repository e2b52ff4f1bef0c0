import type { RedisCommand, RedisExec, RedisReply } from "@resil/limit";
import { keySlot } from "@resil/limit/store";

/**
 * The parts of node-redis this adapter uses, typed structurally so any client from `createClient` or
 * `createCluster` fits, whatever its modules, scripts or RESP version.
 */
export interface NodeRedisClientLike {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** A cluster node as node-redis describes it. */
export interface NodeRedisNodeLike {
  host: string;
  port: number;
}

export interface NodeRedisClusterLike {
  readonly slots: ReadonlyArray<{ master: NodeRedisNodeLike } | undefined>;
  readonly masters: readonly NodeRedisNodeLike[];
  nodeClient(node: NodeRedisNodeLike): Promise<NodeRedisClientLike>;
  /** The cluster's own routing, which follows MOVED and ASK (and loads the slot map again on MOVED). */
  sendCommand?(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
}

/** The cluster has no node for a key's slot (slots not loaded: call `await cluster.connect()` first). */
export class SlotUnassignedError extends Error {
  override name = "SlotUnassignedError";
}

// node-redis writes every command queued in one tick with one socket write (the same pipelining
// `multi().execAsPipeline()` uses), but unlike execAsPipeline, which rejects as a whole on the first
// failed command, this keeps each command's own reply or error: a round needs both.
async function runPipeline(client: NodeRedisClientLike, commands: readonly RedisCommand[]) {
  const sent = commands.map((c) => client.sendCommand(c.args));
  const settled = await Promise.allSettled(sent);
  const lost = settled.find(
    (s): s is PromiseRejectedResult => s.status === "rejected" && !isServerError(s.reason),
  );
  if (lost) throw lost.reason; // the connection failed: the round trip has no replies
  return settled.map((s) => (s.status === "fulfilled" ? (s.value as RedisReply) : (s.reason as Error)));
}

// Server error replies (ErrorReply and its subclasses) are per-command answers, not a lost round trip.
function isServerError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  for (let p = Object.getPrototypeOf(err); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
    if (p.constructor?.name === "ErrorReply") return true;
  }
  return false;
}

function isCluster(client: NodeRedisClientLike | NodeRedisClusterLike): client is NodeRedisClusterLike {
  return "masters" in client && "nodeClient" in client;
}

/**
 * RedisExec over node-redis: a client (`createClient`) runs each round as one pipeline; a cluster
 * (`createCluster`) splits it by the master that serves each key's slot (one pipeline per node, sent
 * concurrently) and runs keyless commands (SCRIPT LOAD) on every master. Connect the client first.
 */
export class NodeRedisExec implements RedisExec {
  /** A client (not a cluster): RedisStore may serve several subjects in one script call. */
  readonly singleNode: boolean;

  constructor(private readonly client: NodeRedisClientLike | NodeRedisClusterLike) {
    this.singleNode = !isCluster(client);
  }

  async pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]> {
    if (commands.length === 0) return [];
    const client = this.client;
    if (!isCluster(client)) return runPipeline(client, commands);

    const replies: RedisReply[] = new Array(commands.length).fill(null);
    const groups = new Map<NodeRedisNodeLike, number[]>();
    const everywhere: number[] = [];
    commands.forEach((c, i) => {
      if (c.key === undefined) {
        everywhere.push(i);
        return;
      }
      const master = client.slots[keySlot(c.key)]?.master;
      if (!master)
        throw new SlotUnassignedError(`node-redis cluster: no node serves the slot of key ${c.key}`);
      const list = groups.get(master);
      if (list) list.push(i);
      else groups.set(master, [i]);
    });
    const work: Promise<void>[] = [];
    for (const [master, indexes] of groups) {
      work.push(
        client
          .nodeClient(master)
          .then((node) =>
            runPipeline(
              node,
              indexes.map((i) => commands[i]!),
            ),
          )
          .then((got) => {
            indexes.forEach((i, j) => {
              replies[i] = got[j] ?? null;
            });
          }),
      );
    }
    if (everywhere.length > 0) {
      const batch = everywhere.map((i) => commands[i]!);
      work.push(
        Promise.all(client.masters.map(async (m) => runPipeline(await client.nodeClient(m), batch))).then(
          (perNode) => {
            everywhere.forEach((i, j) => {
              // The first error wins, else the first node's reply (SCRIPT LOAD answers the same SHA everywhere).
              const all = perNode.map((r) => r[j] ?? null);
              replies[i] = all.find((r) => r instanceof Error) ?? all[0] ?? null;
            });
          },
        ),
      );
    }
    await Promise.all(work);
    await followRedirects(client, commands, replies);
    return replies;
  }
}

// A slot that moved (a failover handed over, a resharding) answers MOVED or ASK without running the
// command: sent again through the cluster's routing, which follows the redirect and, on MOVED, loads
// the new slot map, so the next rounds go to the new master directly.
async function followRedirects(
  cluster: NodeRedisClusterLike,
  commands: readonly RedisCommand[],
  replies: RedisReply[],
): Promise<void> {
  const send = cluster.sendCommand?.bind(cluster);
  if (send === undefined) return;
  const again: Promise<void>[] = [];
  replies.forEach((reply, i) => {
    const c = commands[i]!;
    if (!(reply instanceof Error) || c.key === undefined || !/^(MOVED|ASK) /.test(reply.message)) return;
    again.push(
      send(c.key, false, [...c.args]).then(
        (value) => {
          replies[i] = value as RedisReply;
        },
        (err: unknown) => {
          if (!isServerError(err)) throw err; // the connection failed: the round trip has no replies
          replies[i] = err as Error;
        },
      ),
    );
  });
  await Promise.all(again);
}
