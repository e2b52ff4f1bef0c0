import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Limiter, Pacer, RedisStore, WaitTimeoutError } from "@resil/limit";
import { type ExecHandle, type RedisServer, startRedis } from "@resil/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "./connect.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const UPSTREAM_LIMIT = 100;
const REPLICAS = 4;
const WORKERS = 25;
const RUN_MS = 6_000;
const MAX_WAIT_MS = 2_000;
// Paced a little under the upstream and smoothly: its fixed window is on its own clock, not the store's.
const PACED_RATE = 97;
const PACED_BURST = 4;

/** A local upstream that serves 100 requests per wall-clock second and answers 429 above that. */
function upstream(): Promise<{
  server: Server;
  url: string;
  served: Map<number, number>;
  refused: Map<number, number>;
  limited: () => number;
}> {
  const served = new Map<number, number>();
  const refused = new Map<number, number>();
  let limited = 0;
  const server = createServer((req, res) => {
    if (req.url === "/warm") {
      res.writeHead(204).end();
      return;
    }
    const second = Math.floor(Date.now() / 1000);
    const n = (served.get(second) ?? 0) + 1;
    if (n > UPSTREAM_LIMIT) {
      limited++;
      refused.set(second, (refused.get(second) ?? 0) + 1);
      res.writeHead(429, { "retry-after": "1" }).end();
      return;
    }
    served.set(second, n);
    res.writeHead(200).end("ok");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/`, served, refused, limited: () => limited });
    }),
  );
}

describe("Pacer: 4 replicas on one Redis pace their calls to an upstream that allows 100 per second", () => {
  let redis: RedisServer;
  const handles: ExecHandle[] = [];
  const limiters: Limiter[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.shutdown()));
    await Promise.all(handles.map((h) => h.close()));
    await redis?.stop();
  });

  it("at most 1 % 429s, at least 95 % of the upstream's capacity used, no wait past its maximum", async () => {
    const up = await upstream();
    for (let i = 0; i < REPLICAS; i++) {
      const h = await connect(redis.url);
      handles.push(h);
      const l = new Limiter({ service: "pacing", podId: `pod-${i}` }, new RedisStore(h.exec));
      l.setPolicy("upstream", {
        algorithm: "token_bucket",
        requestsPerSecond: PACED_RATE,
        burstSize: PACED_BURST,
      });
      limiters.push(l);
    }
    await Promise.all(limiters.map((l) => l.start()));
    await sleep(1100); // every replica has seen the others
    // Each worker's connection opened before the run: 100 opened at once with the first paced calls
    // landed them in the next wall-clock second (served [4, 100, ...]; 5-12 429s, all in that second).
    const warm = () => fetch(`${up.url}warm`).then((r) => r.text());
    await Promise.all(Array.from({ length: REPLICAS * WORKERS }, warm));
    const pacers = limiters.map((l) => new Pacer(l, { maxWaitMs: MAX_WAIT_MS }));
    let sent = 0;
    let timeouts = 0;
    let longestWait = 0;
    const end = Date.now() + RUN_MS;
    const workers = pacers.flatMap((pacer) =>
      Array.from({ length: WORKERS }, async () => {
        while (Date.now() < end) {
          const asked = performance.now();
          try {
            await pacer.wait("upstream");
          } catch (err) {
            if (!(err instanceof WaitTimeoutError)) throw err;
            timeouts++;
            continue;
          } finally {
            longestWait = Math.max(longestWait, performance.now() - asked);
          }
          sent++;
          await (await fetch(up.url)).text();
        }
      }),
    );
    await Promise.all(workers);

    // Waiters aborted mid-queue leave nothing behind.
    const controller = new AbortController();
    const aborted = Array.from({ length: 50 }, () =>
      pacers[0]!.wait("upstream", { signal: controller.signal }).catch(() => undefined),
    );
    controller.abort();
    await Promise.all(aborted);
    const left = pacers.reduce((n, p) => n + p.waiting(), 0);
    up.server.close();

    const order = [...up.served.keys()].sort((a, b) => a - b);
    const seconds = order.map((s) => up.served.get(s) ?? 0);
    const refusedPerSecond = order.map((s) => up.refused.get(s) ?? 0);
    const full = seconds.slice(1, -1); // the first and last seconds are partly outside the run
    const used = full.reduce((a, n) => a + n, 0) / (full.length * UPSTREAM_LIMIT);
    const share429 = up.limited() / sent;
    console.log(
      `pacer upstream: served per second ${JSON.stringify(seconds)}, 429s ${JSON.stringify(refusedPerSecond)}; ${sent} sent, ${up.limited()} got 429 (${(share429 * 100).toFixed(2)} %); capacity used ${(used * 100).toFixed(1)} %; ${timeouts} waits timed out; longest wait ${longestWait.toFixed(0)} ms`,
    );
    expect(share429).toBeLessThanOrEqual(0.01);
    expect(used).toBeGreaterThanOrEqual(0.95);
    expect(longestWait).toBeLessThanOrEqual(MAX_WAIT_MS + 100); // a timer's own lateness
    expect(left).toBe(0);
  }, 30_000);
});
