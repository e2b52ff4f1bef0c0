import { describeStoreContract } from "@resil/testkit";
import type { Cluster, Redis } from "ioredis";
import { Cluster as Cluster5, Redis as Redis5 } from "ioredis-5";
import { IoRedisExec } from "../src/index.js";

// The oldest major the peer range admits: the same store contract through ioredis 5. Its classes are
// typed by ioredis 5's own declarations, which a consumer on ioredis 5 resolves as "ioredis".
describeStoreContract({
  name: "ioredis 5",
  async single(server) {
    const client = new Redis5(server.port, server.host, { maxRetriesPerRequest: 1 });
    return {
      exec: new IoRedisExec(client as unknown as Redis),
      close: async () => client.disconnect(),
    };
  },
  async cluster(seeds) {
    const cluster = new Cluster5([...seeds]);
    return {
      exec: new IoRedisExec(cluster as unknown as Cluster),
      close: async () => cluster.disconnect(),
    };
  },
});
