// A new subject whose own round is late while the store answers every other round (wait-on.ts,
// docs/protocol.md#s2-5). Found in CI: a replica checking 100,000 new keys 2,048 at a time on a real
// Redis on a busy host; rounds of 512 keys came back one after another, the later ones after the wait
// budget and cacheTtlMs, while the earlier ones answered, so the store never counted as stalled, and
// their first requests were denied (denyLocal: 1,024 of 100,000) at a thousandth of their limit.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { sleep } from "../../src/clock/sleep.js";
import type { Decision } from "../../src/cluster/decision.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { Store } from "../../src/store/types.js";

/** A MemoryStore whose rounds carrying a key of `slowSubject` answer `lateMs` late; the others at once. */
function storeWithOneLateKey(clock: ManualClock, slowSubject: string, lateMs: number): Store {
  const memory = new MemoryStore(clock);
  return {
    async round(r) {
      if (r.rates.some((q) => q.key.includes(slowSubject))) await sleep(clock, lateMs);
      return memory.round(r);
    },
  };
}

describe("a new subject whose own round is late while the store answers the others", () => {
  for (const lateMs of [300, 900]) {
    it(`round ${lateMs} ms late (cacheTtlMs 200, roundTimeoutMs 1000): admitted by the store's reply, not denied`, async () => {
      const clock = new ManualClock();
      const limiter = new Limiter({ podId: "p0" }, storeWithOneLateKey(clock, "ip:late", lateMs), clock);
      await limiter.start();
      limiter.setFamily("ip:", { requestsPerSecond: 1000 });
      await clock.advanceAsync(1100);
      const late = limiter.check("ip:late");
      let decided: Decision | undefined;
      void late.then((d) => {
        decided = d;
      });
      // other subjects keep the store answering (their rounds good) all along
      let waitedMs = 0;
      for (let i = 0; i < 1200 && decided === undefined; i++) {
        if (i % 20 === 0) void limiter.check(`ip:other-${i}`);
        await clock.advanceAsync(1);
        waitedMs = i + 1;
      }
      expect(decided?.kind).toBe("allow");
      expect(limiter.outcomeCount("denyLocal")).toBe(0);
      expect(limiter.syncFailures()).toBe(0);
      // it waited for its round's reply, no longer
      expect(waitedMs).toBeGreaterThanOrEqual(lateMs);
      expect(waitedMs).toBeLessThanOrEqual(lateMs + 20);
      // its shutdown pushes the late key too: the clock runs until it is done
      let down = false;
      void limiter.shutdown().then(() => {
        down = true;
      });
      for (let i = 0; i < 3000 && !down; i++) await clock.advanceAsync(1);
      expect(down).toBe(true);
    });
  }
});

/** A MemoryStore that runs one round at a time, `perKeyMs` for each rate key in it (a busy Redis). */
function serialStore(clock: ManualClock, perKeyMs: number): Store {
  const memory = new MemoryStore(clock);
  let busyUntil = 0;
  return {
    async round(r) {
      const now = clock.monoMs();
      busyUntil = Math.max(now, busyUntil) + r.rates.length * perKeyMs;
      if (busyUntil > now) await sleep(clock, busyUntil - now);
      return memory.round(r);
    },
  };
}

describe("a flood of new subjects queued behind each other's rounds, the store answering all along", () => {
  it("2,048 new subjects at once on a store taking 0.2 ms a key: every one admitted by its round, none denied", async () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p0" }, serialStore(clock, 0.2), clock);
    await limiter.start();
    limiter.setFamily("ip:", { requestsPerSecond: 1000 });
    await clock.advanceAsync(1100);
    const started = clock.monoMs();
    let last = started;
    const decisions = Array.from({ length: 2048 }, (_, i) =>
      limiter.check(`ip:${i}`).then((d) => {
        last = clock.monoMs();
        return d;
      }),
    );
    let settled = 0;
    for (const d of decisions) void d.then(() => settled++);
    for (let ms = 0; ms < 3000 && settled < decisions.length; ms++) await clock.advanceAsync(1);
    const kinds = new Map<string, number>();
    for (const d of await Promise.all(decisions)) kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
    expect([...kinds]).toEqual([["allow", 2048]]);
    expect(limiter.outcomeCount("allowSync")).toBe(2048);
    expect(limiter.syncFailures()).toBe(0);
    // the last rounds answered long past the wait budget and cacheTtlMs (200), within roundTimeoutMs
    expect(last - started).toBeGreaterThan(400);
    let down = false;
    void limiter.shutdown().then(() => {
      down = true;
    });
    for (let i = 0; i < 3000 && !down; i++) await clock.advanceAsync(1);
    expect(down).toBe(true);
  });
});
