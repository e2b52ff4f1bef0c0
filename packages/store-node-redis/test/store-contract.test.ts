import { describeStoreContract } from "@resil/testkit";
import { createClient, createCluster } from "redis";
import { NodeRedisExec } from "../src/index.js";

describeStoreContract({
  name: "node-redis",
  async single(server) {
    const client = createClient({ url: server.url });
    await client.connect();
    return {
      exec: new NodeRedisExec(client),
      close: async () => client.destroy(),
    };
  },
  async cluster(seeds) {
    const cluster = createCluster({ rootNodes: seeds.map((s) => ({ url: `redis://${s.host}:${s.port}` })) });
    await cluster.connect();
    return {
      exec: new NodeRedisExec(cluster),
      close: async () => cluster.destroy(),
    };
  },
});
