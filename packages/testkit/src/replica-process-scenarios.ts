import type { LimiterOptions } from "@resil/limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LimiterAdapter } from "./exec-handle.js";
import { formatLoad, type LoadResult, mergeLoads, msUntilIntoSecond } from "./load-driver.js";
import { realTimeRetry } from "./loop-delay.js";
import { ReplicaProcess } from "./replica-process.js";
import { forgetService, rawCommand } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";
import { sleep } from "./sleep.js";
import { FIXED_50 } from "./spec-policies.js";

/** A pod's lease in the store: its credit and how long until it expires. */
interface Lease {
  credit: number;
  expiresInMs: number;
}

/**
 * Limiter replicas in separate child processes (replica-runner over the adapter's module), sharing one
 * private server: the 50 rps scenario across processes, and a replica killed with SIGKILL.
 */
export function describeReplicaProcessScenarios(adapter: LimiterAdapter): void {
  // Four Node processes and Redis on 2 cores: wall-clock bounds get one retry (see limiter-scenarios.ts).
  describe(`Limiter replicas in child processes through ${adapter.name}`, { retry: realTimeRetry(1) }, () => {
    let server: RedisServer;
    const children: ReplicaProcess[] = [];
    const byService = new Map<string, ReplicaProcess[]>();

    async function spawnReplicas(service: string, n: number, extra: LimiterOptions = {}) {
      // A retried test asks for its service again: the first attempt's processes go, and their keys.
      const earlier = byService.get(service);
      if (earlier !== undefined) {
        await Promise.all(earlier.map((c) => c.stop(3000)));
        await forgetService(server.port, service);
      }
      const spawned = await Promise.allSettled(
        Array.from({ length: n }, (_, i) =>
          ReplicaProcess.spawn({
            adapterModule: adapter.module,
            url: server.url,
            options: { service, podId: `${service}-proc-${i}`, ...extra },
          }),
        ),
      );
      for (const s of spawned) if (s.status === "fulfilled") children.push(s.value);
      byService.set(
        service,
        spawned.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])),
      );
      const failed = spawned.find((s) => s.status === "rejected");
      if (failed) throw failed.reason;
      return spawned.map((s) => (s as PromiseFulfilledResult<ReplicaProcess>).value);
    }

    /** A pod's lease on the first key of `service` matching `prefix` (rl2 rate, cc3 concurrency), read from the server. */
    async function leaseOf(service: string, prefix: "rl2" | "cc3", pod: string): Promise<Lease | undefined> {
      const keys = (await rawCommand(server.port, ["KEYS", `${prefix}:{${service}:*`])).split("\r\n");
      const key = keys.find((l) => l.startsWith(`${prefix}:`));
      if (!key) return undefined;
      const field = prefix === "rl2" ? `L:${pod}` : pod;
      const value = (await rawCommand(server.port, ["HGET", key, field])).split("\r\n")[1] ?? "";
      const [credit, expiry] = value.split(":").map(Number);
      if (credit === undefined || expiry === undefined) return undefined;
      return { credit, expiresInMs: Math.round(expiry - Date.now()) };
    }

    beforeAll(async () => {
      server = await startRedis({ controllable: true });
    });
    afterAll(async () => {
      await Promise.all(children.map((c) => c.stop(3000)));
      await server?.stop();
    });

    it("four replicas in four processes hold 50 rps cluster-wide at 5x load", async () => {
      const replicas = await spawnReplicas("p1", 4);
      expect(new Set(replicas.map((r) => r.pid)).size).toBe(4);
      expect(replicas.map((r) => r.pid)).not.toContain(process.pid);
      await sleep(1100);
      await Promise.all(
        replicas.map((r) => r.request({ op: "policy", subject: "api", rateLimits: FIXED_50 })),
      );
      const statuses = await Promise.all(replicas.map((r) => r.request({ op: "status" })));
      expect(statuses.map((s) => s.replicas)).toEqual([4, 4, 4, 4]);
      // every process starts on the same wall-clock instant, 950 ms into a second as in @resil/limit docs/protocol.md#s6
      const startAt = Date.now() + msUntilIntoSecond(950, 200);
      const each = await Promise.all(
        replicas.map((r) =>
          r.request(
            { op: "drive", subject: "api", tasks: 4, startAt, durationMs: 4000, pauseMs: 64 },
            15_000,
          ),
        ),
      );
      const total = mergeLoads(each);
      const admittedBy = each.map((r) => r.seconds.reduce((s, [, admitted]) => s + admitted, 0));
      console.log(
        `${formatLoad(`50 rps x 4 processes (${adapter.name})`, total)}; admitted per process ${JSON.stringify(admittedBy)}`,
      );
      for (const [, admitted] of total.seconds) expect(admitted).toBeLessThanOrEqual(52);
      for (const [, admitted] of total.seconds.slice(1, -1)) expect(admitted).toBeGreaterThanOrEqual(48);
      await Promise.all(replicas.map((r) => r.stop()));
    });

    it("a replica killed with SIGKILL: its slots and leases come back, the survivor reaches the full limit", async () => {
      const [a, b] = (await spawnReplicas("k1", 2)) as [ReplicaProcess, ReplicaProcess];
      await sleep(1100);
      for (const r of [a, b]) {
        await r.request({ op: "policy", subject: "jobs", rateLimits: null, maxConcurrent: 4 });
        await r.request({ op: "policy", subject: "api", rateLimits: FIXED_50 });
      }
      expect((await b.request({ op: "status" })).replicas).toBe(2);

      // A takes every slot; B is refused
      const taken = await a.request({ op: "hold", subject: "jobs", want: 4, timeoutMs: 3000, pauseMs: 20 });
      expect(taken.held).toBe(4);
      const refused = await b.request({ op: "hold", subject: "jobs", want: 1, timeoutMs: 300, pauseMs: 50 });
      expect(refused.held).toBe(0);

      // both load the rate key from a second's start; A dies 40 ms into the next second, just after its
      // boundary sync took a fresh reservation, so its lease holds credit nobody else may use
      const startAt = Date.now() + msUntilIntoSecond(0, 100);
      const killAt = startAt + 1040;
      const load = { op: "drive", subject: "api", tasks: 8, startAt, pauseMs: 64 } as const;
      a.request({ ...load, durationMs: 10_000 }, 15_000).catch(() => undefined); // never answers: killed
      const survivorLoad = b.request({ ...load, durationMs: killAt + 5100 - startAt }, 15_000);
      await sleep(killAt - Date.now());
      await a.kill("SIGKILL");
      const killedAt = Date.now();
      expect(a.running).toBe(false);
      const rateLease = await leaseOf("k1", "rl2", a.startup!.podId);
      const slotLease = await leaseOf("k1", "cc3", a.startup!.podId);
      const slots = await b.request({ op: "hold", subject: "jobs", want: 4, timeoutMs: 7000, pauseMs: 100 });
      const rate: LoadResult = await survivorLoad;
      const status = await b.request({ op: "status" });

      // seconds from the kill on, as [ms from the kill to the second's start, admitted, offered]
      const after = rate.seconds
        .filter(([s]) => s * 1000 + 1000 > killedAt)
        .map(([s, admitted, offered]) => [s * 1000 - killedAt, admitted, offered] as const);
      const whole = after.filter(([ms]) => ms >= 0).slice(0, -1);
      const full = whole.find(([, admitted]) => admitted >= 48);
      console.log(
        `SIGKILL (${adapter.name}): the dead replica's leases at the kill: rate ${JSON.stringify(rateLease)}, ` +
          `slots ${JSON.stringify(slotLease)}; ` +
          `all 4 slots back after ${slots.elapsedMs} ms (${slots.held} held, ${slots.attempts} tries); ` +
          `survivor's seconds from the kill (ms from kill, admitted, offered) ${JSON.stringify(after)}; ` +
          `full limit from the second starting ${full?.[0] ?? "never"} ms after the kill; replicas seen ${status.replicas}`,
      );
      // the dead pod's leases end within their life (rate 3 s, concurrency 5 s) of its last sync
      expect(rateLease?.expiresInMs ?? 0).toBeLessThanOrEqual(3000);
      expect(slotLease?.credit).toBe(4);
      expect(slotLease!.expiresInMs).toBeLessThanOrEqual(5000);
      expect(slots.held).toBe(4);
      expect(slots.elapsedMs).toBeGreaterThanOrEqual(slotLease!.expiresInMs - 100); // not before the lease ends
      expect(slots.elapsedMs).toBeLessThanOrEqual(6000); // concurrency lease 5 s, then a sync (@resil/limit docs/protocol.md#s6-10)
      expect(full).toBeDefined();
      expect(full![0]).toBeLessThanOrEqual(4000); // rate lease 3 s, then the next second
      for (const [, admitted] of whole) expect(admitted).toBeLessThanOrEqual(52);
      for (const [, admitted] of whole.filter(([ms]) => ms >= full![0])) {
        expect(admitted).toBeGreaterThanOrEqual(48);
      }
      expect(status.replicas).toBe(1);
      await b.stop();
    });
  });
}
