import { describeStoreContract } from "@resil/testkit";
import { Cluster, Redis } from "ioredis";
import { IoRedisExec } from "../src/index.js";

describeStoreContract({
  name: "ioredis",
  async single(server) {
    const client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
    return {
      exec: new IoRedisExec(client),
      close: async () => client.disconnect(),
    };
  },
  async cluster(seeds) {
    const cluster = new Cluster([...seeds]);
    return {
      exec: new IoRedisExec(cluster),
      close: async () => cluster.disconnect(),
    };
  },
});
