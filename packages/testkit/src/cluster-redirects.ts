import type { RedisCommand, RedisExec } from "@resil/limit";
import { keySlot } from "@resil/limit/store";
import { afterEach, describe, expect, it } from "vitest";
import { type RedisClusterHandle, replicaOf, role, startCluster } from "./cluster.js";
import type { ClusterSeeds } from "./cluster-failover.js";
import type { ExecHandle } from "./exec-handle.js";
import { rawCommand } from "./resp.js";
import type { RedisServer } from "./server.js";
import { sleep } from "./sleep.js";

const KEYS = Array.from({ length: 16 }, (_, i) => `rlmoved:${i}`);

const incr = (keys: readonly string[]): RedisCommand[] => keys.map((key) => ({ key, args: ["INCR", key] }));

/** Writes 16 keys and returns a master holding two of them, in two slots (3 masters: one holds two). */
async function twoKeysOfOneMaster(
  cluster: RedisClusterHandle,
  exec: RedisExec,
): Promise<{ master: RedisServer; pair: [string, string] }> {
  expect(await exec.pipeline(KEYS.map((key) => ({ key, args: ["SET", key, "1"] })))).toEqual(
    KEYS.map(() => "OK"),
  );
  for (const n of cluster.nodes) {
    if (!(await role(n.port)).includes("master")) continue;
    const held = (await rawCommand(n.port, ["KEYS", "rlmoved:*"], 1000)).match(/rlmoved:\d+/g) ?? [];
    if (held.length >= 2 && keySlot(held[0]!) !== keySlot(held[1]!))
      return { master: n, pair: [held[0]!, held[1]!] };
  }
  throw new Error("testkit: no master holds two of the keys");
}

const myId = async (port: number) =>
  /\r\n(\w{40})\r\n/.exec(await rawCommand(port, ["CLUSTER", "MYID"]))![1]!;

/**
 * Redirects inside one round, through one adapter's cluster client: the round's commands for one
 * master, in two slots, after the slots moved. The old master answers each with its own redirect
 * (a client library may follow a pipeline's redirect only when every reply is the same one); every
 * command must still be answered by the node that holds its slot now.
 */
export function describeClusterRedirects(
  name: string,
  connect: (seeds: ClusterSeeds) => Promise<ExecHandle>,
): void {
  let cluster: RedisClusterHandle | undefined;
  let handle: ExecHandle | undefined;

  afterEach(async () => {
    await handle?.close();
    await cluster?.stop();
    [handle, cluster] = [undefined, undefined];
  });

  describe(`redirects in one round through ${name}`, () => {
    it("after CLUSTER FAILOVER (MOVED in two slots): the new master answers each command", {
      timeout: 60_000,
    }, async () => {
      cluster = await startCluster(3, 30_000, { replicas: 1, nodeTimeoutMs: 1000 });
      handle = await connect(cluster.seeds);
      const { master, pair } = await twoKeysOfOneMaster(cluster, handle.exec);
      const replica = await replicaOf(cluster.nodes, master);
      await rawCommand(replica!.port, ["CLUSTER", "FAILOVER"], 1000);
      for (let i = 0; i < 50 && !(await role(master.port)).includes("slave"); i++) await sleep(100);
      expect(await role(replica!.port)).toContain("master");
      // the client's slot map still names the old master
      expect(await handle.exec.pipeline(incr(pair))).toEqual([2, 2]);
      expect(await handle.exec.pipeline(incr(pair))).toEqual([3, 3]);
    });

    it("while a slot migrates (ASK beside a reply) and once it moved (MOVED beside a reply)", {
      timeout: 60_000,
    }, async () => {
      cluster = await startCluster(3, 30_000);
      handle = await connect(cluster.seeds);
      const { master, pair } = await twoKeysOfOneMaster(cluster, handle.exec);
      const target = cluster.nodes.find((n) => n !== master)!;
      const slot = String(keySlot(pair[0]));
      const [from, to] = [await myId(master.port), await myId(target.port)];
      await rawCommand(target.port, ["CLUSTER", "SETSLOT", slot, "IMPORTING", from]);
      await rawCommand(master.port, ["CLUSTER", "SETSLOT", slot, "MIGRATING", to]);
      await rawCommand(master.port, ["MIGRATE", "127.0.0.1", String(target.port), pair[0], "0", "5000"]);
      // the first key is asked for on the target, the second still runs on its master
      expect(await handle.exec.pipeline(incr(pair))).toEqual([2, 2]);
      for (const n of cluster.nodes) await rawCommand(n.port, ["CLUSTER", "SETSLOT", slot, "NODE", to]);
      expect(await handle.exec.pipeline(incr(pair))).toEqual([3, 3]);
      expect(await rawCommand(target.port, ["GET", pair[0]])).toContain("\r\n3\r\n");
    });
  });
}
