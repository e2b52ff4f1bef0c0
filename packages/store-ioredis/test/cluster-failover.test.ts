import { describeClusterFailover } from "@resil/testkit";
import { Cluster } from "ioredis";
import { IoRedisExec } from "../src/index.js";

describeClusterFailover("ioredis", async (seeds) => {
  const client = new Cluster([...seeds], {
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    clusterRetryStrategy: () => 200,
    redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 0 },
  });
  client.on("error", () => {}); // the failover is the test
  return { exec: new IoRedisExec(client), close: async () => client.disconnect() };
});
