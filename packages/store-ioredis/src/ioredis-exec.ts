import type { RedisCommand, RedisExec, RedisReply } from "@resil/limit";
import { keySlot } from "@resil/limit/store";
import type { Cluster, Redis } from "ioredis";

/** The pipeline was discarded by ioredis (exec resolved null), so the round trip has no replies. */
export class PipelineDiscardedError extends Error {
  override name = "PipelineDiscardedError";
}

type Client = Redis | Cluster;

// ioredis resolves a pipeline with [error, result] pairs; a failed command keeps its own error.
async function runPipeline(client: Client, commands: readonly RedisCommand[]): Promise<RedisReply[]> {
  const pipeline = client.pipeline();
  // `call` takes any command by name (the batch form needs a method per command name); the name is its
  // first argument, so the args go as they are (a script call of many keys has hundreds)
  for (const c of commands) pipeline.call(...(c.args as [string, ...string[]]));
  const results = await pipeline.exec();
  if (!results) throw new PipelineDiscardedError("ioredis: the pipeline was discarded (exec resolved null)");
  const lost = results.find(([err]) => err && !isServerError(err))?.[0];
  if (lost) throw lost; // not the server's answer: the connection failed, the round trip has no replies
  return results.map(([err, value]) => err ?? (value as RedisReply));
}

// ioredis hands server error replies over as ReplyError; anything else (a closed stream, an exhausted
// retry) means the command never got its answer.
function isServerError(err: Error): boolean {
  for (let p = Object.getPrototypeOf(err); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
    if (p.constructor?.name === "ReplyError") return true;
  }
  return false;
}

function isCluster(client: Client): client is Cluster {
  return client.isCluster === true;
}

/**
 * RedisExec over ioredis: a `Redis` runs each round as one pipeline; a `Cluster` splits it by the
 * nodes that serve each key's slot (one pipeline per node, sent concurrently) and runs keyless
 * commands (SCRIPT LOAD) on every master.
 */
export class IoRedisExec implements RedisExec {
  /** A `Redis` (not a `Cluster`): RedisStore may serve several subjects in one script call. */
  readonly singleNode: boolean;

  constructor(private readonly client: Client) {
    this.singleNode = !isCluster(client);
  }

  async pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]> {
    if (commands.length === 0) return [];
    const client = this.client;
    if (!isCluster(client)) return runPipeline(client, commands);
    // An empty pipeline resolves once the cluster knows its slots.
    if (client.slots.length === 0) await client.pipeline().exec();

    const replies: RedisReply[] = new Array(commands.length).fill(null);
    const groups = new Map<string, number[]>();
    const everywhere: number[] = [];
    commands.forEach((c, i) => {
      if (c.key === undefined) {
        everywhere.push(i);
        return;
      }
      const nodes = client.slots[keySlot(c.key)];
      const group = nodes ? nodes.join(";") : "";
      const list = groups.get(group);
      if (list) list.push(i);
      else groups.set(group, [i]);
    });
    const work: Promise<void>[] = [];
    for (const indexes of groups.values()) {
      work.push(
        runPipeline(
          client,
          indexes.map((i) => commands[i]!),
        ).then((got) => {
          indexes.forEach((i, j) => {
            replies[i] = got[j] ?? null;
          });
        }),
      );
    }
    if (everywhere.length > 0) {
      const masters = client.nodes("master");
      const batch = everywhere.map((i) => commands[i]!);
      work.push(
        Promise.all(masters.map((m) => runPipeline(m, batch))).then((perNode) => {
          everywhere.forEach((i, j) => {
            // The first error wins, else the first node's reply (SCRIPT LOAD answers the same SHA everywhere).
            const all = perNode.map((r) => r[j] ?? null);
            replies[i] = all.find((r) => r instanceof Error) ?? all[0] ?? null;
          });
        }),
      );
    }
    await Promise.all(work);
    await followRedirects(client, commands, replies);
    return replies;
  }
}

// A slot that moved (a failover handed over, a resharding) answers MOVED or ASK without running the
// command. ioredis follows a pipeline's redirect only when every reply is the same one (one slot), and
// its slot table is not reloaded otherwise: sent again alone, each command is routed by ioredis, which
// follows the redirect and, on MOVED, reloads the slot table, so the next rounds go to the new master.
async function followRedirects(
  cluster: Cluster,
  commands: readonly RedisCommand[],
  replies: RedisReply[],
): Promise<void> {
  const again: Promise<void>[] = [];
  replies.forEach((reply, i) => {
    const c = commands[i]!;
    if (!(reply instanceof Error) || c.key === undefined || !/^(MOVED|ASK) /.test(reply.message)) return;
    again.push(
      cluster.call(...(c.args as [string, ...string[]])).then(
        (value) => {
          replies[i] = value as RedisReply;
        },
        (err: Error) => {
          if (!isServerError(err)) throw err; // the connection failed: the round trip has no replies
          replies[i] = err;
        },
      ),
    );
  });
  await Promise.all(again);
}
