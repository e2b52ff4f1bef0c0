import { type ClusterSeeds, describeClusterFailover, describeClusterRedirects } from "@resil/testkit";
import { createCluster } from "redis";
import { NodeRedisExec } from "../src/index.js";

async function connect(seeds: ClusterSeeds) {
  const cluster = createCluster({
    rootNodes: seeds.map((s) => ({ url: `redis://${s.host}:${s.port}` })),
    // a master that stopped answering: load the slot map again 500 ms after reconnecting began (default 5 s)
    topologyRefreshOnReconnectionAttemptStrategy: 500,
    defaults: {
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 500,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 500),
      },
    },
  });
  cluster.on("error", () => {}); // the failover is the test
  await cluster.connect();
  return { exec: new NodeRedisExec(cluster), close: async () => cluster.destroy() };
}

describeClusterFailover("node-redis", connect);
describeClusterRedirects("node-redis", connect);
