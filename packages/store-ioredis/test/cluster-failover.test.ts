import { type ClusterSeeds, describeClusterFailover, describeClusterRedirects } from "@resil/testkit";
import { Cluster } from "ioredis";
import { IoRedisExec } from "../src/index.js";

async function connect(seeds: ClusterSeeds) {
  const client = new Cluster([...seeds], {
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    clusterRetryStrategy: () => 200,
    redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 0 },
  });
  client.on("error", () => {}); // the failover is the test
  return { exec: new IoRedisExec(client), close: async () => client.disconnect() };
}

describeClusterFailover("ioredis", connect);
describeClusterRedirects("ioredis", connect);
