import { Limiter, RedisStore } from "@resil/limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecHandle, LimiterAdapter } from "./exec-handle.js";
import { rawCommand } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";
import { sleep } from "./sleep.js";

const HOUR_MS = 3_600_000;

/** The count of the key's first window (`w1` = idx:cur:prev:tat) on the server. */
async function windowCount(port: number, pattern: string): Promise<number> {
  const key = (await rawCommand(port, ["KEYS", pattern])).split("\r\n")[2] ?? "";
  const w1 = key ? await rawCommand(port, ["HGET", key, "w1"]) : "";
  const [, cur] = /\d+:(\d+):/.exec(w1) ?? [];
  return Number(cur ?? 0);
}

/**
 * Reserve then settle on a real Redis (@resil/limit docs/protocol.md#s2-10): a settled charge or
 * refund reaches the store's window with the next sync (one round trip, none per settle call), and
 * units refunded after they were pushed are reused without being counted twice.
 */
export function describeSettleScenarios(adapter: LimiterAdapter): void {
  describe(`reserve then settle on Redis through ${adapter.name}`, () => {
    let server: RedisServer;
    let handle: ExecHandle;
    let limiter: Limiter;

    beforeAll(async () => {
      server = await startRedis();
      handle = await adapter.connect(server.url);
    });
    afterAll(async () => {
      await limiter?.shutdown();
      await handle?.close();
      await server?.stop();
    });

    it("settled amounts reach Redis within a sync; settling sends nothing by itself", async () => {
      // an hourly fixed window: the steps below stay inside one window
      const intoHour = Date.now() % HOUR_MS;
      if (intoHour > HOUR_MS - 20_000) await sleep(HOUR_MS - intoHour + 100);
      const service = `settle-${adapter.name}`;
      // a long quiet-key horizon: the first sync grants credit for many calls, so admits come from credit
      limiter = new Limiter({ service, podId: "pod-a", slowSyncMs: 600_000 }, new RedisStore(handle.exec));
      limiter.setPolicy("llm", { algorithm: "fixed_window", requestsPerHour: 100_000, localAllowance: 0.5 });
      await limiter.syncNow(true);
      const base = await windowCount(server.port, `rl2:{${service}:llm}:*`);
      const count = async () => (await windowCount(server.port, `rl2:{${service}:llm}:*`)) - base;

      // an extra charge: 100 estimated, 150 used
      let at = limiter.storeTime();
      expect(limiter.tryAdmit("llm", 100)).toBe(true);
      const rounds = limiter.syncRounds();
      expect(limiter.settle("llm", 50, at)).toBe(50);
      expect(limiter.syncRounds()).toBe(rounds);
      await limiter.syncNow(true);
      expect(await count()).toBe(150);

      // a refund before the push: only the actual 40 are counted
      at = limiter.storeTime();
      expect(limiter.tryAdmit("llm", 100)).toBe(true);
      expect(limiter.settle("llm", -60, at)).toBe(-60);
      await limiter.syncNow(true);
      expect(await count()).toBe(190);

      // a refund after the push: the 30 units come back to this replica and are not pushed again
      at = limiter.storeTime();
      expect(limiter.tryAdmit("llm", 100)).toBe(true);
      await limiter.syncNow(true);
      expect(await count()).toBe(290);
      expect(limiter.settle("llm", -30, at)).toBe(-30);
      expect(limiter.tryAdmit("llm", 30)).toBe(true);
      await limiter.syncNow(true);
      expect(await count()).toBe(290);
    });
  });
}
