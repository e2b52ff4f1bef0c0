// The cheap deny path: a key over its limit is denied locally, not with a store round per request.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Limiter, MemoryStore } from "@resil/limit";
import { afterEach, expect, it } from "vitest";
import { nodeRateLimit } from "../src/index.js";
import { withFamilies } from "./helpers/with-families.js";

let server: Server | undefined;
let limiter: Limiter | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await limiter?.shutdown();
});

it("denies a burst of 300 over-limit requests with a handful of store rounds", async () => {
  const store = new MemoryStore();
  limiter = new Limiter({ service: "mw-rounds" }, store);
  await limiter.start();
  const limit = nodeRateLimit({
    limiter: withFamilies(limiter),
    family: "ip:",
    rateLimits: { algorithm: "fixed_window", requestsPerMinute: 5 },
  });
  server = createServer(limit.wrap((_req, res) => res.end("ok")));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await fetch(url)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);
  const rounds0 = store.rounds;
  const t0 = performance.now();
  const denied = await Promise.all(Array.from({ length: 300 }, () => fetch(url).then((r) => r.status)));
  const seconds = (performance.now() - t0) / 1000;
  const rounds = store.rounds - rounds0;
  console.log(
    `300 denials in ${seconds.toFixed(2)} s: ${rounds} store rounds, denyLocal ${limiter.outcomeCount("denyLocal")}`,
  );
  expect(denied.every((s) => s === 429)).toBe(true);
  // the background loop's own schedule (about one round per sync interval), never one per request
  expect(rounds).toBeLessThanOrEqual(3 + Math.ceil(seconds * 12));
  expect(rounds).toBeLessThan(30);
  expect(limiter.outcomeCount("denyLocal")).toBeGreaterThanOrEqual(290);
});
