// The README example, run as written against this suite's own Redis (only the URL swapped).
import { type RedisServer, runReadmeExample, startRedis } from "@resil/testkit";
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";

let server: RedisServer;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  server = await startRedis({ controllable: true });
  client = createClient({ url: server.url });
  client.on("error", () => {});
  await client.connect();
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

/** How many scripts the server has run (the limiter's rounds are EVALSHA calls). */
async function scriptCalls(): Promise<number> {
  const stats = await client.info("commandstats");
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

it("the README example admits its first request through Redis", async () => {
  const before = await scriptCalls();
  const out = runReadmeExample(new URL("..", import.meta.url), "Example", 30_000, {
    "redis://127.0.0.1:6379": server.url,
  });
  expect(out).toBe("allow\n");
  expect(await scriptCalls()).toBeGreaterThan(before); // decided through the store, not locally
}, 40_000);
