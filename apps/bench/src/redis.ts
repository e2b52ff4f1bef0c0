import { type RedisServer, startRedis } from "@resil/testkit";
import { Redis } from "ioredis";

/** A private redis-server for this case's process (never the user's), or why there is none. */
export async function privateRedis(): Promise<RedisServer | string> {
  try {
    return await startRedis({ controllable: true });
  } catch (err) {
    return `no redis-server (${err instanceof Error ? err.message.split(".")[0] : String(err)})`;
  }
}

export async function connect(server: RedisServer): Promise<Redis> {
  const client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
  await client.ping();
  return client;
}

export async function disconnect(client: Redis): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/**
 * Commands the server executed so far (INFO stats total_commands_processed), minus the INFO calls
 * this function made. Redis counts the commands a Lua script runs as well as the script call itself.
 */
export async function commandsProcessed(client: Redis): Promise<number> {
  const info = await client.info("stats");
  const m = /total_commands_processed:(\d+)/.exec(info);
  if (!m) throw new Error("INFO stats has no total_commands_processed");
  return Number(m[1]);
}
