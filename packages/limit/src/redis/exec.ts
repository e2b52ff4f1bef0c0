/**
 * The one thing RedisStore needs from a Redis client: run commands as a pipeline. Adapters for ioredis
 * and node-redis live in @resil/store-ioredis and @resil/store-node-redis; any other client can
 * implement this interface in a few lines.
 */

/** One command of a pipeline. */
export interface RedisCommand {
  /**
   * The key the command touches (the first, when it touches several of one slot), so a cluster
   * adapter can route it by its hash slot. Absent: a keyless
   * command (SCRIPT LOAD) that a cluster adapter runs on every master, replying with the first reply.
   */
  readonly key?: string;
  /** Command name then arguments, e.g. `["EVALSHA", sha, "1", key, ...argv]`. */
  readonly args: readonly string[];
}

/** A Redis reply as clients decode RESP2: integers, bulk or simple strings, nil, arrays. */
export type RedisValue = string | number | bigint | null | RedisValue[];

/** One entry per command: its reply, or the Error the server (or the client) gave for it. */
export type RedisReply = RedisValue | Error;

export interface RedisExec {
  /**
   * True when one Redis serves every key (not a Redis Cluster): RedisStore then serves several
   * subjects in one script call. Absent or false: a call serves only keys of one hash slot.
   */
  readonly singleNode?: boolean;
  /**
   * Runs `commands` as one pipeline (on a cluster, one pipeline per node, sent concurrently) and
   * resolves with one entry per command, in order; a failed command's entry is an Error. Rejects only
   * when the round trip itself fails (connection lost, client closed).
   */
  pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]>;
}
