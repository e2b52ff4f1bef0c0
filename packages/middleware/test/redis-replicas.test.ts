// 4 gateway replicas (child processes, node:http + nodeRateLimit) on one private Redis hold one
// per-IP limit between them, counted from the client side per Unix second. Real time: run under
// the machine lock (see the README's Testing section).
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { msUntilIntoSecond, type RedisServer, startRedis } from "@resil/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";

const REPLICAS = 4;
const LIMIT = 50; // per second, fixed window, one client IP
const LOOPS = 12; // client loops, each about 25 req/s: about 6x the limit
const PACE_MS = 40;
const DRIVE_MS = 5000;
const RUNNER = fileURLToPath(new URL("./fixtures/replica-server.ts", import.meta.url));

let redis: RedisServer;
const children: ChildProcess[] = [];
const ports: number[] = [];

function spawnReplica(i: number): Promise<number> {
  const config = {
    redisUrl: redis.url,
    service: `mw-replicas-${process.pid}`,
    podId: `pod-${i}`,
    rateLimits: { algorithm: "fixed_window", requestsPerSecond: LIMIT },
  };
  const child = fork(RUNNER, [JSON.stringify(config)], {
    execArgv: ["--conditions=source", "--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${i} did not start`)), 20_000);
    child.once("message", (m: { port: number }) => {
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once("exit", (code) => reject(new Error(`replica ${i} exited (${code})`)));
  });
}

beforeAll(async () => {
  redis = await startRedis();
  ports.push(...(await Promise.all(Array.from({ length: REPLICAS }, (_, i) => spawnReplica(i)))));
}, 60_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          const kill = setTimeout(() => c.kill("SIGKILL"), 5000);
          c.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          c.send("stop");
        }),
    ),
  );
  await redis?.stop();
}, 30_000);

it("holds 50 req/s per IP across 4 replicas, counted per second at the client", async () => {
  await new Promise((r) => setTimeout(r, 1100 + msUntilIntoSecond(100))); // replicas registered; start into a second
  const admitted = new Map<number, number>();
  const offered = new Map<number, number>();
  const byReplica = new Array<number>(REPLICAS).fill(0);
  const end = Date.now() + DRIVE_MS;
  const loop = async (n: number) => {
    for (let i = n; Date.now() < end; i++) {
      const sent = Date.now();
      const second = Math.floor(sent / 1000);
      const port = ports[i % REPLICAS]!;
      const r = await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-forwarded-for": "203.0.113.5" } });
      await r.arrayBuffer();
      offered.set(second, (offered.get(second) ?? 0) + 1);
      if (r.status === 200) {
        admitted.set(second, (admitted.get(second) ?? 0) + 1);
        byReplica[i % REPLICAS]!++;
      } else expect(r.status).toBe(429);
      const wait = PACE_MS - (Date.now() - sent);
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, n) => loop(n)));
  const seconds = [...offered.keys()].sort();
  const rows = seconds.map((s) => [s, admitted.get(s) ?? 0, offered.get(s)!] as const);
  console.log(`per second (admitted, offered): ${rows.map(([, a, o]) => `${a}/${o}`).join(" ")}`);
  console.log(`admitted by replica: ${byReplica.join(" ")}`);
  for (const count of byReplica) expect(count).toBeGreaterThan(0); // the limit is shared, not one replica's
  const middle = rows.slice(1, -1);
  expect(middle.length).toBeGreaterThanOrEqual(3);
  for (const [, a, o] of middle) {
    expect(o).toBeGreaterThan(LIMIT * 3); // the limit was really under pressure
    expect(a).toBeLessThanOrEqual(LIMIT + 3); // a request sent at x.999 may be admitted in x+1
    expect(a).toBeGreaterThanOrEqual(LIMIT * 0.9);
  }
}, 60_000);
