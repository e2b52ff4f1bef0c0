// Credit far below its limit is leased for its longest window (at most a minute): a key used every
// few seconds admits from it instead of waiting for a round trip each time (a server with 100,000
// keys each asked every 2-20 s), and its admits go to the store together, before it lapses.

import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { spiedStore } from "./spied-store.js";

const pushes = (sent: ReturnType<typeof spiedStore>["sent"]) =>
  sent.filter((s) => s.request.rates.some((r) => r.hits + r.hitsOld > 0));

it("admits from idle credit are pushed in one sync, before the credit lapses", {
  timeout: 30_000,
}, async () => {
  const clock = new ManualClock();
  const { sent, store } = spiedStore(clock);
  const l = new Limiter({ podId: "p0" }, store, clock);
  await l.start();
  l.setPolicy("api", { requestsPerMinute: 6_000_000 });
  expect((await l.check("api")).kind).toBe("allow");
  const synced = sent.at(-1)!;
  // the minute window: trusted for 45 s of it
  expect(synced.request.rates[0]!.leaseTtlMs).toBe(60_000);
  for (let ms = 0; ms < 60_000; ms += 10) {
    if (ms === 600 || ms === 700 || ms === 20_000 || ms === 40_000)
      expect(l.tryCheck("api")?.kind).toBe("allow");
    await clock.advanceAsync(10);
  }
  const later = pushes(sent).filter((s) => s.at > synced.at);
  expect(later).toHaveLength(1);
  const pushed = later[0]!.request.rates[0]!;
  // those made before the minute turned are dated in it (hitsOld)
  expect(pushed.hits + pushed.hitsOld).toBe(4);
  // one sync interval before the trust ends; each admit waited for a round trip before (2.25 s credit)
  expect(later[0]!.at - synced.at).toBe(45_000 - 100);
  expect(l.outcomeCount("allowSync") + l.outcomeCount("denySync")).toBe(0);
  await l.shutdown();
});

it("credit near its limit keeps the lease: two admits are pushed within slowSyncMs", async () => {
  const clock = new ManualClock();
  const { sent, store } = spiedStore(clock);
  const l = new Limiter({ podId: "p0" }, store, clock);
  await l.start();
  l.setPolicy("api", { requestsPerMinute: 20, localAllowance: 1 / 2 });
  expect((await l.check("api")).kind).toBe("allow");
  for (let ms = 0; ms < 3000 && pushes(sent).length === 0; ms += 10) await clock.advanceAsync(10);
  const synced = sent.at(-1)!;
  expect(synced.request.rates[0]!.leaseTtlMs).toBe(3000);
  await clock.advanceAsync(200);
  expect(l.tryCheck("api")?.kind).toBe("allow");
  expect(l.tryCheck("api")?.kind).toBe("allow");
  for (let ms = 0; ms < 3000; ms += 10) await clock.advanceAsync(10);
  const push = pushes(sent).find((s) => s.at > synced.at);
  expect(push).toBeDefined();
  expect(push!.request.rates[0]!.hits).toBe(2);
  expect(push!.at - synced.at).toBeLessThanOrEqual(1000 + 20);
  await l.shutdown();
});
