// The README example, run as written against this suite's own Redis (only the URL swapped).
import { commandCalls, type RedisServer, rawCommand, runReadmeExample, startRedis } from "@resil/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ controllable: true });
});
afterAll(async () => {
  await server?.stop();
});

/** How many scripts the server has run (the limiter's rounds are EVALSHA calls). */
async function scriptCalls(): Promise<number> {
  return commandCalls(await rawCommand(server.port, ["INFO", "commandstats"])).evalsha ?? 0;
}

it("the README example admits its first request through Redis", async () => {
  const before = await scriptCalls();
  const out = runReadmeExample(new URL("..", import.meta.url), "Example", 30_000, {
    "redis://127.0.0.1:6379": server.url,
  });
  expect(out).toBe("allow\n");
  expect(await scriptCalls()).toBeGreaterThan(before); // decided through the store, not locally
}, 40_000);
