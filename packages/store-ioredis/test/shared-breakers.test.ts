import { BreakerConfig, RedisSharedBreakers, TwoTier } from "@resil/breaker";
import { type ExecHandle, type RedisServer, startRedis } from "@resil/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "./connect.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const SYNC_MS = 50;
const OPEN_MS = 1_000;
const VENDOR = "azure|east";
const VENDOR_FAILURE = { breaker: { kind: "deployment" } } as const;

describe("RedisSharedBreakers: 3 replicas share their breakers through one Redis", () => {
  let redis: RedisServer;
  const handles: ExecHandle[] = [];
  const shared: RedisSharedBreakers[] = [];
  const replicas: TwoTier[] = [];

  beforeAll(async () => {
    redis = await startRedis({ controllable: true });
    for (let i = 0; i < 3; i++) {
      const h = await connect(redis.url);
      handles.push(h);
      const s = new RedisSharedBreakers(h.exec, { service: "gw", podId: `r${i}`, syncIntervalMs: SYNC_MS });
      shared.push(s);
      replicas.push(
        new TwoTier({ shared: s, deployment: { ...BreakerConfig.deployment(), openForMs: OPEN_MS } }),
      );
      s.start();
    }
  });
  afterAll(async () => {
    await Promise.all(shared.map((s) => s.stop().catch(() => undefined)));
    await Promise.all(handles.map((h) => h.close()));
    await redis?.stop();
  });

  it("one replica's failures open the target for the others within one sync; one probe cluster-wide; its success closes it everywhere", async () => {
    const [r0, r1, r2] = replicas as [TwoTier, TwoTier, TwoTier];
    for (let i = 0; i < 5; i++) r0.recordFailure("gpt-4o@east", VENDOR, VENDOR_FAILURE);
    expect(r0.check("gpt-4o@east", VENDOR).allowed).toBe(false);
    const opened = performance.now();
    let seenAfter = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 200 && seenAfter === Number.POSITIVE_INFINITY; i++) {
      if (!r1.check("gpt-4o@east", VENDOR).allowed && !r2.check("gpt-4o@east", VENDOR).allowed)
        seenAfter = performance.now() - opened;
      else await sleep(2);
    }
    console.log(
      `shared breakers: open seen by the other replicas after ${seenAfter.toFixed(0)} ms (sync ${SYNC_MS} ms)`,
    );
    // r0 pushes at its next sync, the others read at theirs: at most two intervals and the round trips.
    expect(seenAfter).toBeLessThanOrEqual(2 * SYNC_MS + 100);

    await sleep(OPEN_MS + 50);
    const probes: number[] = [0, 0, 0];
    const until = performance.now() + 500;
    let prober = -1;
    while (performance.now() < until) {
      replicas.forEach((r, i) => {
        const c = r.check("gpt-4o@east", VENDOR);
        if (c.allowed && c.probes?.includes("deployment")) {
          probes[i]!++;
          prober = i;
        }
      });
      await sleep(5);
    }
    expect(probes.reduce((a, n) => a + n, 0)).toBe(1);

    replicas[prober]!.recordSuccess("gpt-4o@east", VENDOR);
    await sleep(3 * SYNC_MS + 50);
    for (const r of replicas) expect(r.check("gpt-4o@east", VENDOR)).toEqual({ allowed: true });
  }, 20_000);

  it("while Redis is unreachable each replica decides alone, and reports the error", async () => {
    const errors: unknown[] = [];
    const lone = await startRedis({ controllable: true });
    const h = await connect(lone.url);
    handles.push(h);
    const s = new RedisSharedBreakers(h.exec, {
      service: "gw2",
      syncIntervalMs: SYNC_MS,
      onError: (e) => errors.push(e),
    });
    const alone = new TwoTier({ shared: s, deployment: { ...BreakerConfig.deployment(), openForMs: 100 } });
    await lone.stop();
    for (let i = 0; i < 5; i++) alone.recordFailure("t", VENDOR, VENDOR_FAILURE);
    await s.syncNow();
    expect(errors.length).toBeGreaterThan(0);
    await sleep(150);
    const c = alone.check("t", VENDOR); // the open expired: the local probe goes ahead
    expect(c.allowed && c.probes).toEqual(["deployment"]);
  }, 20_000);
});
