// Issue 16: a key used about once a second costs a key-sync (a script run on Redis) per two requests,
// not one per request, and its admits still reach the store before its credit lapses.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { spiedStore } from "./spied-store.js";

/** 200 keys, each asked once a second (the keys in turn, every 5 ms), for `seconds`. */
async function walk(
  l: Limiter,
  clock: ManualClock,
  seconds: number,
): Promise<{ requests: number; allowed: number }> {
  let requests = 0;
  let allowed = 0;
  for (let step = 0; step < seconds * 200; step++) {
    const subject = `u:${step % 200}`;
    requests++;
    if ((l.tryCheck(subject) ?? (await l.check(subject))).kind === "allow") allowed++;
    await clock.advanceAsync(5);
  }
  return { requests, allowed };
}

describe("sparse keys", () => {
  it("one request a second per key: about one key-sync per two requests, every admit pushed", async () => {
    const clock = new ManualClock();
    const { sent, store } = spiedStore(clock);
    const l = new Limiter({ podId: "p0" }, store, clock);
    await l.start();
    l.setFamily("u:", { requestsPerSecond: 1000 });
    await walk(l, clock, 5); // every key known and in its rhythm
    const from = sent.length;
    const { requests, allowed } = await walk(l, clock, 20);
    expect(allowed).toBe(requests);
    const syncs = sent.slice(from).flatMap((s) => s.request.rates);
    // one per request before (each admit pushed within a second on its own)
    expect(syncs.length / requests).toBeLessThan(0.62);
    expect(syncs.length / requests).toBeGreaterThan(0.4);
    // no push waits past the credit it was taken from: at most 2.15 s between a key's syncs
    const last = new Map<string, number>();
    let longest = 0;
    for (const { at, request } of sent.slice(from)) {
      for (const r of request.rates) {
        const before = last.get(r.key);
        if (before !== undefined) longest = Math.max(longest, at - before);
        last.set(r.key, at);
      }
    }
    expect(longest).toBeLessThanOrEqual(2150 + 20 + 5);
    await l.shutdown();
  }, 60_000);

  it("two requests a second per key sync as before: once a second", async () => {
    const clock = new ManualClock();
    const { sent, store } = spiedStore(clock);
    const l = new Limiter({ podId: "p0" }, store, clock);
    await l.start();
    l.setFamily("u:", { requestsPerSecond: 1000 });
    // 100 keys asked every 5 ms in turn: each key twice a second
    const ask = async (seconds: number) => {
      let requests = 0;
      for (let step = 0; step < seconds * 200; step++) {
        const subject = `u:${step % 100}`;
        requests++;
        l.tryCheck(subject) ?? (await l.check(subject));
        await clock.advanceAsync(5);
      }
      return requests;
    };
    await ask(5);
    const from = sent.length;
    const requests = await ask(20);
    const syncs = sent.slice(from).flatMap((s) => s.request.rates).length;
    // a second's two admits go in one sync: one per key a second
    expect(syncs / (100 * 20)).toBeGreaterThan(0.8);
    expect(syncs / (100 * 20)).toBeLessThanOrEqual(1.1);
    expect(requests).toBe(4000);
    await l.shutdown();
  }, 60_000);
});
