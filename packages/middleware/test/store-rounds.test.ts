// The cheap deny path: a key over its limit is denied locally, not with a store round per request.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Limiter, MemoryStore } from "@resil/limit";
import { afterEach, expect, it } from "vitest";
import { nodeRateLimit } from "../src/index.js";

let server: Server | undefined;
let limiter: Limiter | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await limiter?.shutdown();
});

it("denies 4 bursts of over-limit requests over 2.5 s with a handful of store rounds", {
  timeout: 15_000,
}, async () => {
  // a fixed window per hour: never start in the last 5 s of an hour (a reset would admit mid-test)
  const into = Date.now() % 3_600_000;
  if (into > 3_595_000) await new Promise((r) => setTimeout(r, 3_600_000 - into + 50));
  const store = new MemoryStore();
  limiter = new Limiter({ service: "mw-rounds" }, store);
  await limiter.start();
  const limit = nodeRateLimit({
    limiter: limiter,
    family: "ip:",
    rateLimits: { algorithm: "fixed_window", requestsPerHour: 5 },
  });
  server = createServer(limit.wrap((_req, res) => res.end("ok")));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await fetch(url)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);
  const rounds0 = store.rounds;
  const t0 = performance.now();
  const denied: number[] = [];
  for (let burst = 0; burst < 4; burst++) {
    if (burst > 0) await new Promise((r) => setTimeout(r, 800));
    const answers = Array.from({ length: 100 }, () => fetch(url).then((r) => r.status));
    denied.push(...(await Promise.all(answers)));
  }
  const seconds = (performance.now() - t0) / 1000;
  const rounds = store.rounds - rounds0;
  const asked = limiter.outcomeCount("denyLocal") + limiter.outcomeCount("denySync");
  console.log(`400 denials in ${seconds.toFixed(2)} s: ${rounds} store rounds, ${asked} limiter denials`);
  expect(denied.filter((s) => s !== 429)).toEqual([]);
  // the background loop's own schedule (a quiet key: about once a second), never one per request or burst
  expect(rounds).toBeLessThanOrEqual(2 + Math.ceil(seconds * 2));
  // the first denial gave the middleware its Retry-After; the others were answered from memory
  expect(asked).toBeLessThanOrEqual(4);
  expect(limit.gate.denials?.size).toBe(1);
});
