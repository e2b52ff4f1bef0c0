import { Limiter, RedisStore } from "@resil/limit";
import { afterEach, describe, expect, it } from "vitest";
import { type RedisClusterHandle, replicaOf, role, startCluster } from "./cluster.js";
import type { ExecHandle } from "./exec-handle.js";
import { RIG_LIMIT, RIG_POLICY } from "./fault-rig.js";
import { driveLoad, msUntilIntoSecond } from "./load-driver.js";
import { realTimeRetry } from "./loop-delay.js";
import { rawCommand } from "./resp.js";
import type { RedisServer } from "./server.js";
import { sleep } from "./sleep.js";

const REPLICAS = 4;
/** While a fault starts, lasts or ends: each replica's ⌈L / N⌉ rounded up, L + N − 1 at most. */
const FAULT_BOUND = RIG_LIMIT + REPLICAS - 1;

/** The master holding a key that matches `pattern` (replicas hold copies: masters only). */
async function masterOf(nodes: readonly RedisServer[], pattern: string): Promise<RedisServer | undefined> {
  for (const n of nodes) {
    if (!(await role(n.port)).includes("master")) continue;
    if ((await rawCommand(n.port, ["KEYS", pattern], 1000)).includes("rl")) return n;
  }
  return undefined;
}

/** How the key's master goes: killed (SIGKILL), or handed over by its replica (`CLUSTER FAILOVER`). */
type Fault = "killed" | "handed over";

async function failOver(nodes: readonly RedisServer[], victim: RedisServer, fault: Fault): Promise<void> {
  if (fault === "killed") return victim.stop();
  const replica = await replicaOf(nodes, victim);
  if (replica === undefined) throw new Error("testkit: no replica of the key's master");
  await rawCommand(replica.port, ["CLUSTER", "FAILOVER"], 1000);
}

/** Seeds of a Redis Cluster, as `startCluster` gives them. */
export type ClusterSeeds = ReadonlyArray<{ host: string; port: number }>;

/**
 * A Redis Cluster failover under load, through one adapter's cluster client (`connect` makes one,
 * ready, that survives a failover): the key's master killed (its replica takes over after the
 * cluster-node-timeout, 1 s here) or handed over (`CLUSTER FAILOVER` on its replica, as for
 * maintenance: the old master answers MOVED). The client must find the new master, and the limit
 * holds through and after the failover. 4 replicas, 50/s, 5x.
 */
export function describeClusterFailover(
  name: string,
  connect: (seeds: ClusterSeeds) => Promise<ExecHandle>,
): void {
  let cluster: RedisClusterHandle | undefined;
  const handles: ExecHandle[] = [];
  const limiters: Limiter[] = [];

  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.shutdown()));
    await Promise.all(handles.splice(0).map((h) => h.close()));
    await cluster?.stop();
    cluster = undefined;
  });

  describe(`a Redis Cluster failover through ${name}`, () => {
    it.each<Fault>(["killed", "handed over"])(
      "the key's master %s under load: at most L + N − 1 a second, then rounds succeed again",
      {
        timeout: 120_000,
        retry: realTimeRetry(1),
      },
      async (fault) => {
        cluster = await startCluster(3, 30_000, { replicas: 1, nodeTimeoutMs: 1000 });
        for (let i = 0; i < REPLICAS; i++) {
          const handle = await connect(cluster.seeds);
          handles.push(handle);
          const limiter = new Limiter(
            { podId: `pod-${i}`, service: "failover" },
            new RedisStore(handle.exec),
          );
          limiter.setPolicy("api", RIG_POLICY);
          limiters.push(limiter);
        }
        await Promise.all(limiters.map((l) => l.start()));
        await sleep(1100);
        const victim = await masterOf(cluster.nodes, "rl*{failover:api}*");
        expect(victim, "the key's master").toBeDefined();

        const startAt = Date.now() + msUntilIntoSecond(100, 300);
        let failuresAt7s = -1;
        const timers = [
          setTimeout(() => void failOver(cluster!.nodes, victim!, fault), startAt - Date.now() + 2000),
          setTimeout(
            () => {
              failuresAt7s = limiters.reduce((s, l) => s + l.syncFailures(), 0);
            },
            startAt - Date.now() + 7000,
          ),
        ];
        const load = await driveLoad(limiters, {
          subject: "api",
          tasks: 16,
          durationMs: 9000,
          pauseMs: 64,
          startAt,
        });
        for (const t of timers) clearTimeout(t);
        const failures = limiters.reduce((s, l) => s + l.syncFailures(), 0);
        const admitted = load.seconds.map(([, a]) => a);
        console.log(
          `cluster master ${fault} (${name}): admitted per second ${JSON.stringify(admitted)}; failed rounds ${failures} (${failuresAt7s} at 7 s)`,
        );

        for (const [second, a] of load.seconds)
          expect({ second, admitted: a }).toEqual({ second, admitted: Math.min(a, FAULT_BOUND) });
        // the replica took over and holds the key
        const promoted = await masterOf(cluster.nodes, "rl*{failover:api}*");
        expect(promoted?.port).not.toBe(victim!.port);
        // the last two seconds' rounds did not fail (a killed master's did, for a while)
        if (fault === "killed") expect(failures).toBeGreaterThan(0);
        expect(failures).toBe(failuresAt7s);
        // and the full seconds after it admitted the limit, no more
        for (const a of admitted.slice(-3, -1)) expect(a).toBeGreaterThanOrEqual(RIG_LIMIT - REPLICAS);
        for (const a of admitted.slice(-3, -1)) expect(a).toBeLessThanOrEqual(RIG_LIMIT);
      },
    );
  });
}
