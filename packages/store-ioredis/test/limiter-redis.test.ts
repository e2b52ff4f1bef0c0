import { Limiter, type LimiterOptions, type RateLimitConfig, RedisStore } from "@resil/limit";
import { commandCalls, DelayedExec, type RedisServer, rawCommand, startRedis } from "@resil/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IoRedisExec } from "../src/index.js";

// The real-Redis scenarios of specs/limiter-protocol.md section 6 (and issue 5), through ioredis.
// Latencies are printed, not asserted, except the bounds that say a check never waits on a stuck store.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: RedisServer;
const clients: Redis[] = [];

function client(): Redis {
  const c = new Redis(server.port, server.host, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
  c.on("error", () => {}); // outages are part of the scenarios
  clients.push(c);
  return c;
}

async function replicas(
  n: number,
  options: LimiterOptions,
  delayMs = 0,
): Promise<{ limiters: Limiter[]; execs: DelayedExec[] }> {
  const connections = Array.from({ length: n }, () => client());
  await Promise.all(connections.map((c) => new Promise((r) => c.once("ready", r))));
  const execs = connections.map((c) => new DelayedExec(new IoRedisExec(c), delayMs));
  const limiters = execs.map((e, i) => new Limiter({ podId: `pod-${i}`, ...options }, new RedisStore(e)));
  await Promise.all(limiters.map((l) => l.start()));
  await sleep(1100);
  return { limiters, execs };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

async function untilMsIntoSecond(ms: number): Promise<void> {
  const wait = (ms - (Date.now() % 1000) + 1000) % 1000;
  await sleep(wait);
}

interface LoadResult {
  perSecond: Array<[number, number]>;
  latencies: number[];
}

/** `tasks` callers for `durationMs`, each a check on a rotating replica then `pauseMs`. */
async function drive(
  limiters: Limiter[],
  subject: string,
  tasks: number,
  durationMs: number,
  pauseMs: number,
): Promise<LoadResult> {
  const seconds = new Map<number, [number, number]>();
  const latencies: number[] = [];
  const end = Date.now() + durationMs;
  let turn = 0;
  await Promise.all(
    Array.from({ length: tasks }, async () => {
      for (let i = 0; i < 10_000 && Date.now() < end; i++) {
        const l = limiters[turn++ % limiters.length]!;
        const t0 = performance.now();
        const d = await l.check(subject);
        latencies.push(performance.now() - t0);
        const s = Math.floor(Date.now() / 1000);
        const cell = seconds.get(s) ?? [0, 0];
        if (d.kind === "allow") cell[0]++;
        cell[1]++;
        seconds.set(s, cell);
        await sleep(pauseMs);
      }
    }),
  );
  const perSecond = [...seconds.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  latencies.sort((a, b) => a - b);
  return { perSecond, latencies };
}

function report(label: string, r: LoadResult): void {
  const l = r.latencies;
  console.log(
    `${label}: per-second (admitted, offered) ${JSON.stringify(r.perSecond)}; check latency ` +
      `p50=${percentile(l, 0.5).toFixed(3)}ms p99=${percentile(l, 0.99).toFixed(3)}ms max=${(l.at(-1) ?? 0).toFixed(3)}ms`,
  );
}

const FIXED_50: RateLimitConfig = {
  algorithm: "fixed_window",
  requestsPerSecond: 50,
  localAllowance: 0.8,
  cacheTtlMs: 500,
};

beforeAll(async () => {
  server = await startRedis({ controllable: true });
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

describe("Limiter on a real Redis through ioredis (spec 6)", () => {
  it("1. four replicas hold 50 rps cluster-wide at 5x load", async () => {
    const { limiters } = await replicas(4, { service: "s1" });
    for (const l of limiters) l.setPolicy("api", FIXED_50);
    expect(limiters.map((l) => l.replicas())).toEqual([4, 4, 4, 4]);
    await untilMsIntoSecond(950);
    const r = await drive(limiters, "api", 16, 4000, 64);
    report("50 rps x 4 replicas", r);
    for (const [admitted] of r.perSecond) expect(admitted).toBeLessThanOrEqual(52);
    for (const [admitted] of r.perSecond.slice(1, -1)) expect(admitted).toBeGreaterThanOrEqual(48);
    await Promise.all(limiters.map((l) => l.shutdown()));
  });

  it("2. a slow store (40 ms) never makes a check wait past redisTimeoutMs", async () => {
    const { limiters } = await replicas(2, { service: "s2" }, 40);
    for (const l of limiters) {
      l.setPolicy("slow", { algorithm: "sliding_window", requestsPerSecond: 5, redisTimeoutMs: 10 });
    }
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await limiters[i % 2]!.check("slow");
      latencies.push(performance.now() - t0);
      await sleep(5);
    }
    latencies.sort((a, b) => a - b);
    const overruns = limiters.reduce((s, l) => s + l.outcomeCount("allowOverrun"), 0);
    console.log(
      `slow store: worst check ${(latencies.at(-1) ?? 0).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms, overruns ${overruns}`,
    );
    // bounded by redisTimeoutMs (10) plus scheduling, far below the 40 ms store
    expect(latencies.at(-1)!).toBeLessThan(40);
    await Promise.all(limiters.map((l) => l.shutdown()));
  });

  it("3. a concurrency cap of 5 holds across 3 replicas, and slots come back", async () => {
    const { limiters } = await replicas(3, { service: "s3" });
    for (const l of limiters) l.setPolicy("jobs", null, 5);
    const held = [];
    for (let i = 0; i < 30; i++) {
      const r = await limiters[i % 3]!.acquire("jobs");
      if (r.kind === "acquired") held.push(r.slot);
      await sleep(20);
    }
    console.log(`concurrency: ${held.length} of 30 acquires held (cap 5)`);
    expect(held.length).toBeGreaterThanOrEqual(4);
    expect(held.length).toBeLessThanOrEqual(5);
    for (const s of held) s.release();
    await sleep(1500);
    const again = await limiters[0]!.acquire("jobs");
    expect(again.kind).toBe("acquired");
    if (again.kind === "acquired") again.slot.release();
    await Promise.all(limiters.map((l) => l.shutdown()));
  });

  it("4. a token-bucket burst after idle admits at most the burst (store delay 0, 2, 4 ms)", async () => {
    const results = await Promise.all(
      [0, 2, 4].map(async (delay) => {
        const { limiters } = await replicas(1, { service: `s4-${delay}` }, delay);
        const l = limiters[0]!;
        l.setPolicy("burst", { algorithm: "token_bucket", requestsPerSecond: 1, burstSize: 2 });
        const rounds: Array<[number, number]> = [];
        for (let round = 0; round < 2; round++) {
          const first = await Promise.all(Array.from({ length: 5 }, () => l.check("burst")));
          await sleep(2600);
          const second = await Promise.all(Array.from({ length: 3 }, () => l.check("burst")));
          rounds.push([
            first.filter((d) => d.kind === "allow").length,
            second.filter((d) => d.kind === "allow").length,
          ]);
        }
        await l.shutdown();
        return { delay, rounds };
      }),
    );
    console.log(`burst after idle (5 then 3 concurrent): ${JSON.stringify(results)}`);
    for (const { rounds } of results) {
      for (const [first, second] of rounds) {
        expect(first).toBeLessThanOrEqual(2);
        expect(second).toBe(2);
      }
    }
  });

  it("5. a staggered burst with a second window admits exactly the burst", async () => {
    const { limiters } = await replicas(1, { service: "s5" });
    const l = limiters[0]!;
    const combos = [1000, 3000, 6000].flatMap((rpm) => [0, 1, 3, 8].map((gap) => ({ rpm, gap })));
    const results = await Promise.all(
      combos.map(async ({ rpm, gap }) => {
        const subject = `stagger-${rpm}-${gap}`;
        l.setPolicy(subject, {
          algorithm: "token_bucket",
          requestsPerSecond: 1,
          requestsPerMinute: rpm,
          burstSize: 2,
        });
        const staggered = async (n: number) => {
          const pending = [];
          for (let i = 0; i < n; i++) {
            pending.push(l.check(subject));
            if (gap > 0) await sleep(gap);
          }
          return (await Promise.all(pending)).filter((d) => d.kind === "allow").length;
        };
        const rounds: Array<[number, number]> = [];
        for (let round = 0; round < 4; round++) {
          const first = await staggered(5);
          await sleep(2600);
          rounds.push([first, await staggered(3)]);
        }
        return { rpm, gap, rounds };
      }),
    );
    console.log(`staggered burst: ${JSON.stringify(results)}`);
    for (const { rounds } of results) for (const [, second] of rounds) expect(second).toBe(2);
    await l.shutdown();
  });
});

describe("Limiter on a real Redis through ioredis (issue 5 extras)", () => {
  it("a Redis paused with SIGSTOP for 1.5 s: checks stay bounded, overruns counted, sync resumes", async () => {
    const { limiters } = await replicas(2, { service: "x1", roundTimeoutMs: 300 });
    for (const l of limiters) l.setPolicy("p", { algorithm: "fixed_window", requestsPerSecond: 200 });
    const rounds0 = limiters[0]!.syncRounds();
    server.pause();
    const paused = Date.now();
    const latencies: number[] = [];
    try {
      for (let i = 0; i < 10_000 && Date.now() - paused < 1500; i++) {
        const t0 = performance.now();
        await limiters[i % 2]!.check("p");
        latencies.push(performance.now() - t0);
        await sleep(5);
      }
    } finally {
      server.resume();
    }
    const failures = limiters[0]!.syncFailures();
    const before = limiters[0]!.syncRounds();
    // keep the key busy after SIGCONT so its syncs resume
    for (let i = 0; i < 200; i++) {
      await limiters[i % 2]!.check("p");
      await sleep(10);
    }
    latencies.sort((a, b) => a - b);
    const overruns = limiters.reduce((s, l) => s + l.outcomeCount("allowOverrun"), 0);
    const degraded = limiters.reduce((s, l) => s + l.outcomeCount("allowDegraded"), 0);
    console.log(
      `SIGSTOP 1.5 s: ${latencies.length} checks, worst ${(latencies.at(-1) ?? 0).toFixed(2)} ms, ` +
        `overruns ${overruns}, degraded ${degraded}, failed rounds ${failures}, rounds since pause ${before - rounds0}`,
    );
    expect(latencies.at(-1)!).toBeLessThan(10 + 40); // redisTimeoutMs (10) + margin
    expect(overruns + degraded).toBeGreaterThan(0);
    expect(limiters[0]!.syncRounds()).toBeGreaterThan(before);
    expect(limiters[0]!.storeFailing()).toBe(false);
    await Promise.all(limiters.map((l) => l.shutdown()));
  });

  it("an outage (server stopped, restarted empty on the same port): fail-static, no crash, hits pushed after", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const { limiters } = await replicas(2, { service: "x2", roundTimeoutMs: 300 });
      for (const l of limiters) l.setPolicy("o", { algorithm: "fixed_window", requestsPerMinute: 1000 });
      // SHUTDOWN keeps the server's directory, so restart() brings it back empty on the same port
      await rawCommand(server.port, ["SHUTDOWN", "NOSAVE"]).catch(() => "");
      let admitted = 0;
      const end = Date.now() + 1500;
      for (let i = 0; i < 2000 && Date.now() < end; i++) {
        if ((await limiters[i % 2]!.check("o")).kind === "allow") admitted++;
        await sleep(5);
      }
      const degraded = limiters.reduce((s, l) => s + l.outcomeCount("allowDegraded"), 0);
      await server.restart();
      // the clients reconnect on their own; give the loops a few rounds
      await sleep(3000);
      const key = (await rawCommand(server.port, ["KEYS", "rl2:{x2:o}:*"])).split("\r\n")[2] ?? "";
      const w1 = key ? await rawCommand(server.port, ["HGET", key, "w1"]) : "";
      const pushed = Number(/\d+:(\d+):/.exec(w1)?.[1] ?? 0);
      console.log(
        `outage: admitted ${admitted} while down (degraded ${degraded}); pushed after recovery: ${pushed}`,
      );
      expect(degraded).toBeGreaterThan(0);
      expect(pushed).toBeGreaterThan(0);
      expect(limiters.every((l) => !l.storeFailing())).toBe(true);
      await Promise.all(limiters.map((l) => l.shutdown()));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("Redis commands per second stay flat when the request rate grows 10x", async () => {
    const { limiters } = await replicas(4, { service: "x3" });
    for (const l of limiters) l.setPolicy("cmd", { ...FIXED_50, requestsPerSecond: 1_000_000 });
    const rates: string[] = [];
    const perSecond: number[] = [];
    for (const pause of [40, 4]) {
      const before = commandCalls(await rawCommand(server.port, ["INFO", "commandstats"]));
      const t0 = Date.now();
      const r = await drive(limiters, "cmd", 8, 3000, pause);
      const secs = (Date.now() - t0) / 1000;
      const after = commandCalls(await rawCommand(server.port, ["INFO", "commandstats"]));
      const commands = Object.keys(after).reduce((s, k) => s + after[k]! - (before[k] ?? 0), 0);
      const requests = r.perSecond.reduce((s, [, offered]) => s + offered, 0);
      perSecond.push(commands / secs);
      rates.push(`${(requests / secs).toFixed(0)} req/s -> ${(commands / secs).toFixed(1)} Redis commands/s`);
    }
    console.log(`commandstats: ${rates.join("; ")}`);
    // round trips follow keys and time, not requests: 10x the load must not multiply the commands
    expect(perSecond[1]!).toBeLessThan(2 * perSecond[0]!);
    await Promise.all(limiters.map((l) => l.shutdown()));
  });
});
