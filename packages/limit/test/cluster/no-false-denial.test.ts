// A key far below its limit is never denied, bursts on fresh keys included.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateAlgorithm } from "../../src/cluster/config.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { SeededRandom } from "../../src/cluster/prng.js";
import { MemoryStore } from "../../src/store/memory-store.js";

/**
 * Bursts of `burst` concurrent checks spread over the replicas: on a fresh key every `everyMs`, and on
 * each of 3 older keys at random times (Poisson, `burstsPerSecond` each); the clock moves 1 ms at a time.
 */
async function bursts(
  limiters: Limiter[],
  clock: ManualClock,
  o: { burst: number; everyMs: number; burstsPerSecond: number; durationMs: number; seed: number },
) {
  const rng = new SeededRandom(o.seed);
  let denied = 0;
  let checks = 0;
  const pending: Promise<unknown>[] = [];
  const fire = (subject: string) => {
    for (let i = 0; i < o.burst; i++) {
      const l = limiters[i % limiters.length]!;
      checks++;
      const now = l.tryCheck(subject);
      if (now?.kind === "deny") denied++;
      if (now === undefined) {
        pending.push(
          l.check(subject).then((d) => {
            if (d.kind === "deny") denied++;
          }),
        );
      }
    }
  };
  for (let ms = 0; ms < o.durationMs; ms++) {
    if (ms % o.everyMs === 0) {
      // a burst, and another one on the same key once the first was answered
      fire(`k:fresh${ms}`);
      await Promise.all(pending.splice(0));
      fire(`k:fresh${ms}`);
    }
    for (let key = 0; key < 3; key++) if (rng.next() < o.burstsPerSecond / 1000) fire(`k:old${key}`);
    // the store answers within the same millisecond (a fast store): waits never time out
    await Promise.all(pending.splice(0));
    await clock.advanceAsync(1);
  }
  return { denied, checks };
}

describe("no false denial", () => {
  for (const algorithm of ["sliding_window", "token_bucket", "fixed_window"] as RateAlgorithm[]) {
    for (const limit of [1000, 1_000_000_000]) {
      it(`${algorithm}, ${limit}/s: bursts of 50 at half the limit or less are all admitted`, async () => {
        const clock = new ManualClock();
        const store = new MemoryStore(clock);
        const limiters = [0, 1].map((i) => new Limiter({ podId: `p${i}` }, store, clock));
        for (const l of limiters) await l.start();
        for (const l of limiters) l.setFamily("k:", { algorithm, requestsPerSecond: limit });
        // 50 at a time, 10 times a second on average per key: 500/s, half of the lower limit
        const { denied, checks } = await bursts(limiters, clock, {
          burst: 50,
          everyMs: 100,
          burstsPerSecond: 10,
          durationMs: 5000,
          seed: 3,
        });
        expect(checks).toBeGreaterThan(50 * 150);
        expect(denied).toBe(0);
        for (const l of limiters) expect(l.outcomeCount("allowOverrun")).toBe(0);
        for (const l of limiters) await l.shutdown();
      });
    }
  }

  // Found on a loaded 2-core host (real Redis, 4 busy loops): round trips past the wait budget denied
  // whole bursts on new family subjects, up to 220 of 5000 checks at a tenth of the limit.
  it("a new family subject on a store slower than the wait budget: no denial, no wait past cacheTtlMs", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiters = [0, 1].map((i) => new Limiter({ podId: `p${i}` }, store, clock));
    for (const l of limiters) await l.start();
    await clock.advanceAsync(1100); // each replica has seen the other's heartbeat: N = 2
    expect(limiters.map((l) => l.replicas())).toEqual([2, 2]);
    for (const l of limiters) l.setFamily("ip:", { requestsPerSecond: 1000, redisTimeoutMs: 10 });
    store.setLatency(60);
    let denied = 0;
    let waitedMs = 0;
    for (let round = 0; round < 6; round++) {
      const started = clock.monoMs();
      const decisions = Array.from({ length: 50 }, (_, i) => limiters[i % 2]!.check(`ip:10.0.${round}.1`));
      let settled = 0;
      for (const d of decisions) void d.then(() => settled++);
      for (let ms = 0; ms < 400 && settled < decisions.length; ms++) await clock.advanceAsync(1);
      for (const d of await Promise.all(decisions)) if (d.kind === "deny") denied++;
      waitedMs = Math.max(waitedMs, clock.monoMs() - started);
      await clock.advanceAsync(300);
    }
    expect(denied).toBe(0);
    expect(waitedMs).toBeLessThanOrEqual(201); // cacheTtlMs (200), to the millisecond step
    store.setLatency(0);
    for (const l of limiters) await l.shutdown();
  });
});
