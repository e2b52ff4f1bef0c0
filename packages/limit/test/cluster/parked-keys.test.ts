// A quiet key holding credit far below its limit is parked: the schedule does not look at it every
// 250 ms until its credit lapses (8 looks a key, the busiest code of an HTTP server with 100,000
// keys each asked every few seconds). An admit from that credit wakes it, so its admits are pushed
// when an unparked key's are: one before the credit lapses, two within slowSyncMs of the last sync.

import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { spiedStore } from "./spied-store.js";

it("admits from a parked key's credit are pushed when an unparked key's would be", async () => {
  const clock = new ManualClock();
  const { sent, store } = spiedStore(clock);
  const l = new Limiter({ podId: "p0" }, store, clock);
  await l.start();
  l.setPolicy("api", { requestsPerMinute: 6_000_000 });
  const first = l.check("api");
  await clock.advanceAsync(5);
  expect((await first).kind).toBe("allow");
  // the first admit is pushed; the key is then quiet, its credit a sliver of its limit
  for (let ms = 0; ms < 3000 && !sent.some((s) => s.request.rates.some((r) => r.hits > 0)); ms += 10) {
    await clock.advanceAsync(10);
  }
  const pushedAt = sent.filter((s) => s.request.rates.some((r) => r.hits > 0)).pop()!.at;
  await clock.advanceAsync(600);
  const admittedAt = clock.monoMs();
  expect(l.tryCheck("api")?.kind).toBe("allow");
  expect(l.tryCheck("api")?.kind).toBe("allow");
  for (let ms = 0; ms < 3000; ms += 10) await clock.advanceAsync(10);
  const push = sent.find((s) => s.at > admittedAt && s.request.rates.some((r) => r.hits + r.hitsOld > 0));
  expect(push).toBeDefined();
  expect(push!.request.rates[0]!.hits).toBe(2);
  // two admits are not a sparse key's one: due slowSyncMs (1 s) after the last sync, looked at within
  // a tick (20 ms) of it; left parked, they would wait until it could ride along, 2.05 s after it
  expect(push!.at - pushedAt).toBeLessThanOrEqual(1000 + 20);
  await l.shutdown();
});
