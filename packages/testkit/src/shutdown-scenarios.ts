import { type Decision, Limiter, type LimiterEvent, OUTCOMES, RedisStore } from "@resil/limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecHandle, LimiterAdapter } from "./exec-handle.js";
import { realTimeRetry } from "./loop-delay.js";
import { forgetService } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";

const KEYS = 100_000;
/** Rounds a limiter keeps in flight (@resil/limit's background loop and shutdown). */
const MAX_ROUNDS_IN_FLIGHT = 4;
const LIMIT = 1000;
// cacheTtlMs 5 s: the setup's rounds on a loaded CI host (up to 4 of 512 keys queued in Redis) must
// not count as a stall, or fail-static decides first checks; what is tested is the shutdown's rounds
const POLICY = {
  algorithm: "sliding_window",
  requestsPerMinute: LIMIT,
  localAllowance: 0.8,
  cacheTtlMs: 5000,
} as const;

/**
 * Shutdown of a replica holding 100,000 keys on a healthy Redis (@resil/limit docs/protocol.md#s3-8).
 * Its last rounds once carried every key in one round each: through ioredis 1.96 s, the push round
 * past roundTimeoutMs (a failure and a storeFailing event from a healthy store). In rounds of
 * maxKeysPerRound, a few in flight: 1.14 s, none failed, every admit from credit counted. On a
 * paused Redis (SIGSTOP) one wave of rounds times out per phase and the rest are not sent: 2.04 s
 * and 8 rounds (one round a phase before: 2.12 s).
 */
export function describeShutdownScenarios(adapter: LimiterAdapter): void {
  // real time on a shared host: a starved process can see a round outlive roundTimeoutMs
  describe(`shutdown with 100,000 keys on a real Redis through ${adapter.name}`, {
    retry: realTimeRetry(1),
  }, () => {
    let server: RedisServer;
    const handles: ExecHandle[] = [];
    beforeAll(async () => {
      server = await startRedis({ controllable: true });
    });
    afterAll(async () => {
      await Promise.all(handles.map((h) => h.close()));
      await server?.stop();
    });

    /** Checks every subject once, 2,048 at a time. */
    async function checkAll(limiter: Limiter, subjects: readonly string[]): Promise<Decision[]> {
      const all: Decision[] = [];
      for (let i = 0; i < subjects.length; i += 2048) {
        all.push(...(await Promise.all(subjects.slice(i, i + 2048).map((s) => limiter.check(s)))));
      }
      return all;
    }

    it("pushes every admit in rounds that all answer, and the next replica counts them", async () => {
      await forgetService(server.port, "shut");
      const [a, b] = await Promise.all([0, 1].map(() => adapter.connect(server.url)));
      handles.push(a!, b!);
      const events: LimiterEvent[] = [];
      const onEvent = (e: LimiterEvent) => events.push(e);
      const leaving = new Limiter({ service: "shut", podId: "a", onEvent }, new RedisStore(a!.exec));
      await leaving.start();
      leaving.setFamily("k:", POLICY);
      const subjects = Array.from({ length: KEYS }, (_, i) => `k:${i}`);
      // a key's first check waits for its sync, which charges it; the second is admitted from the
      // credit that sync brought, and the store sees it only when it is pushed
      await checkAll(leaving, subjects);
      await checkAll(leaving, subjects);
      const outcomes = OUTCOMES.map((o) => [o, leaving.outcomeCount(o)]).filter(([, n]) => n !== 0);
      expect(outcomes).toEqual([
        ["allowLocal", KEYS],
        ["allowSync", KEYS],
      ]);
      const failuresBefore = leaving.syncFailures();
      const roundsBefore = leaving.syncRounds();
      const started = Date.now();
      await leaving.shutdown();
      const failed = leaving.syncFailures() - failuresBefore;
      console.log(
        `shutdown with ${KEYS} keys: ${Date.now() - started} ms, ${leaving.syncRounds() - roundsBefore} rounds, ${failed} failed`,
      );
      expect(failed).toBe(0);
      expect(events.filter((e) => e.type === "storeFailing")).toEqual([]);

      // the next replica's first request on each key finds both of the leaver's admits counted
      const next = new Limiter({ service: "shut", podId: "b" }, new RedisStore(b!.exec));
      await next.start();
      next.setFamily("k:", POLICY);
      const remaining = new Map<number, number>();
      for (const d of await checkAll(next, subjects)) {
        const r = d.kind === "allow" ? d.headers.remaining : -1;
        remaining.set(r, (remaining.get(r) ?? 0) + 1);
      }
      await next.shutdown();
      expect([...remaining]).toEqual([[LIMIT - 3, KEYS]]);
    }, 120_000);

    it("on a paused Redis gives up after one wave of rounds per phase", async () => {
      await forgetService(server.port, "shut-paused");
      const handle = await adapter.connect(server.url);
      handles.push(handle);
      const leaving = new Limiter({ service: "shut-paused", podId: "a" }, new RedisStore(handle.exec));
      await leaving.start();
      leaving.setFamily("k:", POLICY);
      const subjects = Array.from({ length: KEYS }, (_, i) => `k:${i}`);
      await checkAll(leaving, subjects);
      await checkAll(leaving, subjects);
      const roundsBefore = leaving.syncRounds();
      const started = Date.now();
      server.pause();
      try {
        await leaving.shutdown();
      } finally {
        server.resume();
      }
      const rounds = leaving.syncRounds() - roundsBefore;
      console.log(`shutdown with ${KEYS} keys, Redis paused: ${Date.now() - started} ms, ${rounds} rounds`);
      // 4 pushes and 4 releases in flight time out; the other 385 rounds and the leave are not sent
      expect(rounds).toBe(2 * MAX_ROUNDS_IN_FLIGHT);
    }, 120_000);
  });
}
