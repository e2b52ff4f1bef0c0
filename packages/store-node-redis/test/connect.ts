import type { ExecHandle } from "@resil/testkit";
import { createClient } from "redis";
import { NodeRedisExec } from "../src/index.js";

// The adapter module of the Limiter scenarios: loaded by the suite and, by path, by replica child processes.

/** A connected node-redis client for `url` that fails fast while disconnected and reconnects within 500 ms. */
export async function connect(url: string): Promise<ExecHandle> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500) },
  });
  client.on("error", () => {}); // outages are part of the scenarios
  await client.connect();
  return { exec: new NodeRedisExec(client), close: async () => client.destroy() };
}
