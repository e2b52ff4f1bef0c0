// README examples that need a Redis, run as written against this suite's own server (only the URL
// swapped): this package's example, and @resil/breaker's shared breakers (which use this adapter).
import { commandCalls, type RedisServer, rawCommand, runReadmeExample, startRedis } from "@resil/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";

const README_URL = "redis://127.0.0.1:6379";
let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedis({ controllable: true });
  client = new Redis(server.url);
});
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

/** How many scripts the server has run (the limiter's rounds are EVALSHA calls). */
async function scriptCalls(): Promise<number> {
  return commandCalls(await rawCommand(server.port, ["INFO", "commandstats"])).evalsha ?? 0;
}

it("the README example admits its first request through Redis", async () => {
  const before = await scriptCalls();
  const out = runReadmeExample(new URL("..", import.meta.url), "Example", 30_000, {
    [README_URL]: server.url,
  });
  expect(out).toBe("allow\n");
  expect(await scriptCalls()).toBeGreaterThan(before); // decided through the store, not locally
}, 40_000);

it("@resil/breaker's shared-breakers example pushes its open to Redis, where the other replicas read it", async () => {
  const breaker = new URL("../../breaker/", import.meta.url);
  const out = runReadmeExample(breaker, "Shared across replicas (optional)", 30_000, {
    [README_URL]: server.url,
  });
  expect(out).toBe("false\n");
  const until = Number(await client.hget("resil:brk:{gateway}", "deployment|gpt-4o@eastus"));
  expect(until).toBeGreaterThan(Date.now() + 30_000); // opened for 60 s
}, 40_000);
