// A wait registered while a round is in flight: that round does not carry its need, so the round
// that does gets the whole wait budget (docs/protocol.md#s2-5). Found on a quiet 2-core host (real
// Redis, `families-redis.test.ts`): a burst landing on a round in flight, the two rounds together
// 13-22 ms against a 10 ms budget, was denied (18-24 of 50, in 3 of 27 runs) on a healthy store at a
// tenth of its limit. Here: a burst of 200 (a fifth of the limit) had 158 denied before.

import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";

it("a burst registered during a round in flight: the round carrying it gets the whole budget", async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const limiters = [0, 1].map((i) => new Limiter({ podId: `p${i}` }, store, clock));
  for (const l of limiters) await l.start();
  await clock.advanceAsync(1100); // N = 2
  const [a] = limiters as [Limiter, Limiter];
  a.setPolicy("api", { requestsPerSecond: 1000, redisTimeoutMs: 10 });
  store.setLatency(2);
  // the key is known and answered; round trips of 2 ms measured (budget: redisTimeoutMs, 10 ms)
  for (let i = 0; i < 20; i++) {
    const d = a.check("api");
    await clock.advanceAsync(5);
    expect((await d).kind).toBe("allow");
  }
  await clock.advanceAsync(1000);
  // rounds now take 7 ms: one is started by a request beyond the key's credit ...
  store.setLatency(7);
  let spent = 0;
  while (spent < 1000 && a.tryCheck("api")?.kind === "allow") spent++;
  expect(spent).toBeLessThan(1000);
  expect(a.tryCheck("api")).toBeUndefined();
  const first = a.check("api");
  await clock.advanceAsync(1);
  // ... and a burst beyond that round's credit lands on it 1 ms later: 6 ms of that round, then 7 ms of the next, past 10 ms
  const burst = Array.from({ length: 200 }, () => a.check("api"));
  let settled = 0;
  for (const d of [first, ...burst]) void d.then(() => settled++);
  for (let ms = 0; ms < 100 && settled < 201; ms++) await clock.advanceAsync(1);
  const decisions = await Promise.all(burst);
  expect(settled).toBe(201);
  const denied = decisions.filter((d) => d.kind === "deny").length;
  expect(denied).toBe(0);
  expect(a.outcomeCount("allowOverrun")).toBe(0);
  store.setLatency(0);
  for (const l of limiters) await l.shutdown();
});
