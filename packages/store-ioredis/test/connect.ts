import type { ExecHandle } from "@resil/testkit";
import { Redis } from "ioredis";
import { IoRedisExec } from "../src/index.js";

// The adapter module of the Limiter scenarios: loaded by the suite and, by path, by replica child processes.

/** A ready ioredis client for `url` that fails fast while disconnected and reconnects within 500 ms. */
export async function connect(url: string): Promise<ExecHandle> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 50, 500),
  });
  client.on("error", () => {}); // outages are part of the scenarios
  await client.connect();
  return { exec: new IoRedisExec(client), close: async () => client.disconnect() };
}
