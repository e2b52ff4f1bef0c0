import { describeClusterFailover } from "@resil/testkit";
import { createCluster } from "redis";
import { NodeRedisExec } from "../src/index.js";

describeClusterFailover("node-redis", async (seeds) => {
  const cluster = createCluster({
    rootNodes: seeds.map((s) => ({ url: `redis://${s.host}:${s.port}` })),
    // a master that stopped answering: load the slot map again 500 ms after reconnecting began (default 5 s)
    topologyRefreshOnReconnectionAttemptStrategy: 500,
    defaults: {
      disableOfflineQueue: true,
      socket: { connectTimeout: 500, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500) },
    },
  });
  cluster.on("error", () => {}); // the failover is the test
  await cluster.connect();
  return { exec: new NodeRedisExec(cluster), close: async () => cluster.destroy() };
});
