// Family keys held compactly: store keys built from the family, local counts held by the key itself.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { ratePolicy } from "../../src/cluster/config.js";
import { configHash, rateStoreKey } from "../../src/cluster/keys.js";
import { Limiter } from "../../src/cluster/limiter.js";
import type { SubjectTable } from "../../src/cluster/subjects.js";
import { MemoryStore } from "../../src/store/memory-store.js";

function setup(store: boolean) {
  const clock = new ManualClock();
  const limiter = new Limiter(
    { podId: "p", service: "svc" },
    store ? new MemoryStore(clock) : undefined,
    clock,
  );
  const { subjects } = limiter as unknown as { subjects: SubjectTable };
  return { clock, limiter, subjects };
}

/** Advances in 100 ms steps, with a round (and an idle sweep) after each, until `subject` is evicted. */
async function untilEvicted(l: Limiter, clock: ManualClock, subject: string, maxMs: number): Promise<number> {
  const from = clock.unixMs();
  while (l.hasPolicy(subject) && clock.unixMs() - from < maxMs) {
    clock.advance(100);
    await l.syncNow();
  }
  return clock.unixMs() - from;
}

describe("compact family keys", () => {
  for (const store of [true, false]) {
    it(`a family subject's store key is its family's, also once setPolicy makes it explicit (store: ${store})`, async () => {
      const { limiter, subjects } = setup(store);
      const limits = { requestsPerSecond: 10, requestsPerMinute: 100 };
      limiter.setFamily("ip:", limits);
      limiter.tryCheck("ip:1");
      const policy = ratePolicy(limits)!;
      const expected = rateStoreKey("svc", "ip:1", configHash(policy.alg, policy.windows));
      const k = subjects.rates.get("ip:1")!;
      expect(k.storeKey).toBe(expected);
      expect(k.family?.prefix).toBe("ip:");
      limiter.setPolicy("ip:1", limits); // same limits: the live state stays, now explicit
      expect(subjects.rates.get("ip:1")).toBe(k);
      expect(k.family).toBeUndefined();
      expect(k.storeKey).toBe(expected);
      await limiter.shutdown();
    });
  }

  for (const [name, limits] of [
    ["a minute", { algorithm: "sliding_window", requestsPerMinute: 12 }],
    ["a second and a minute", { algorithm: "sliding_window", requestsPerSecond: 12, requestsPerMinute: 12 }],
  ] as const) {
    it(`an evicted local-only subject that returns keeps the counts of its windows (${name})`, async () => {
      const { clock, limiter } = setup(false);
      limiter.setFamily("u:", limits);
      clock.set(Math.ceil(clock.unixMs() / 60_000) * 60_000 + 1000);
      let admitted = 0;
      for (let i = 0; i < 15; i++) if (limiter.tryAdmit("u:1")) admitted++;
      expect(admitted).toBe(12);
      expect(await untilEvicted(limiter, clock, "u:1", 80_000)).toBeGreaterThanOrEqual(63_000);
      expect(limiter.hasPolicy("u:1")).toBe(false);
      // the previous minute still weighs most of its 12: a fresh start would admit 5
      admitted = 0;
      for (let i = 0; i < 5; i++) if (limiter.tryAdmit("u:1")) admitted++;
      expect(admitted).toBeLessThanOrEqual(2);
      clock.advance(120_000);
      admitted = 0;
      for (let i = 0; i < 5; i++) if (limiter.tryAdmit("u:1")) admitted++;
      expect(admitted).toBe(5);
      await limiter.shutdown();
    });
  }
});
