// Credit far below its limit is leased for its longest window (at most a minute): a key used every
// few seconds admits from it instead of waiting for a round trip each time (a server with 100,000
// keys each asked every 2-20 s), and its admits go to the store together, before it lapses.

import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { spiedStore } from "./spied-store.js";

/** A limiter on a spied MemoryStore whose key "api" has the policy and was checked once. */
async function checkedOnce(policy: RateLimitConfig) {
  const clock = new ManualClock();
  const { sent, store } = spiedStore(clock);
  const l = new Limiter({ podId: "p0" }, store, clock);
  await l.start();
  l.setPolicy("api", policy);
  expect((await l.check("api")).kind).toBe("allow");
  return { clock, sent, l };
}

const pushes = (sent: ReturnType<typeof spiedStore>["sent"]) =>
  sent.filter((s) => s.request.rates.some((r) => r.hits + r.hitsOld > 0));

it("admits from idle credit are pushed in one sync, before the credit lapses", {
  timeout: 30_000,
}, async () => {
  const { clock, sent, l } = await checkedOnce({ requestsPerMinute: 6_000_000 });
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
  const { clock, sent, l } = await checkedOnce({ requestsPerMinute: 20, localAllowance: 1 / 2 });
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

/** Rounds that carried this key, after the first. */
const keySyncs = (sent: ReturnType<typeof spiedStore>["sent"]) =>
  sent.filter((s) => s.request.rates.length > 0).slice(1);

it("idle credit covers a lease of demand: a key used every 250 ms syncs about once a lease", {
  timeout: 30_000,
}, async () => {
  const { clock, sent, l } = await checkedOnce({ requestsPerMinute: 6_000_000 });
  let admitted = 1;
  for (let ms = 0; ms < 120_000; ms += 10) {
    if (ms % 250 === 0) {
      const d = l.tryCheck("api") ?? (await l.check("api"));
      expect(d.kind).toBe("allow");
      admitted++;
    }
    await clock.advanceAsync(10);
  }
  const syncs = keySyncs(sent);
  // 480 admits in 2 minutes; with 3 s of demand per credit (12 admits) it was one sync every 3 s (40)
  expect(syncs.length).toBeGreaterThan(0);
  expect(syncs.length).toBeLessThanOrEqual(5);
  const wanted = Math.max(...syncs.map((s) => s.request.rates[0]!.want + s.request.rates[0]!.unused));
  // 4 a second for the 45 s the lease is trusted
  expect(wanted).toBeGreaterThanOrEqual(150);
  expect(l.outcomeCount("allowSync")).toBe(0);
  await l.shutdown();
  const pushed = sent.flatMap((s) => s.request.rates).reduce((n, r) => n + r.hits + r.hitsOld, 0);
  expect(pushed).toBe(admitted);
});

it("idle credit stays within half the limit with what the window holds", { timeout: 30_000 }, async () => {
  const { clock, sent, l } = await checkedOnce({ requestsPerMinute: 150 });
  for (let ms = 0; ms < 120_000; ms += 10) {
    if (ms % 1000 === 0) expect((l.tryCheck("api") ?? (await l.check("api"))).kind).toBe("allow");
    await clock.advanceAsync(10);
  }
  const asked = keySyncs(sent).map((s) => ({ at: s.at - sent[0]!.at, r: s.request.rates[0]! }));
  const idle = asked.filter((a) => a.r.leaseTtlMs === 60_000);
  // early on the lease's demand fits: about 45 units at one a second
  expect(idle[0]!.r.unused + idle[0]!.r.want).toBeGreaterThanOrEqual(45);
  // once the window holds 60 admits of 150, at most what keeps it half full (75) is held
  const late = idle.filter((a) => a.at >= 61_000);
  expect(late.length).toBeGreaterThan(0);
  for (const a of late) expect(a.r.unused + a.r.want).toBeLessThanOrEqual(75 - 40);
  await l.shutdown();
});
