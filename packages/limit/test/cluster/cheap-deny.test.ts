// Issues 16 and 20: a key over its limit is denied locally until its reset (no round per burst), and a
// lone replica's slow round never denies a key far below its limit.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, Store } from "../../src/store/types.js";

const keySyncs = (l: Limiter) => (l as unknown as { exchange: { keySyncs: number } }).exchange.keySyncs;

const ONE_AN_HOUR: [string, RateLimitConfig][] = [
  ["a fixed window", { algorithm: "fixed_window", requestsPerHour: 1 }],
  // before: a round per key every sync interval (no unit frees before the next token, an hour on)
  ["a token bucket", { algorithm: "token_bucket", requestsPerHour: 1, burstSize: 1 }],
  ["a sliding window", { algorithm: "sliding_window", requestsPerHour: 1 }],
];

describe("cheap deny path", () => {
  it.each(ONE_AN_HOUR)(
    "keys over %s of 1 an hour cost no round per request until a unit could free",
    async (_, policy) => {
      const clock = new ManualClock();
      const l = new Limiter({ podId: "p0" }, new MemoryStore(clock), clock);
      await l.start();
      l.setFamily("k:", policy);
      const subjects = Array.from({ length: 500 }, (_, i) => `k:${i}`);
      for (let pass = 0; pass < 3; pass++) await Promise.all(subjects.map((s) => l.check(s)));
      const before = keySyncs(l);
      let requests = 0;
      let allowed = 0;
      // each key asked again every 250 ms for 10 s: the window (an hour) never resets
      for (let ms = 0; ms < 10_000; ms++) {
        const s = subjects[ms % 250]!;
        for (const subject of [s, subjects[250 + (ms % 250)]!]) {
          requests++;
          const d = l.tryCheck(subject) ?? (await l.check(subject));
          if (d.kind === "allow") allowed++;
        }
        await clock.advanceAsync(1);
      }
      expect(allowed).toBe(0);
      // 0.25 key-syncs per request before: each key synced again a second after its denial
      expect((keySyncs(l) - before) / requests).toBeLessThan(0.01);
      await l.shutdown();
    },
    60_000,
  );
});

describe("no false denial on a slow round", () => {
  it("a lone replica overruns a key far below its limit when its view is from an earlier window", async () => {
    const clock = new ManualClock();
    const memory = new MemoryStore(clock);
    let hold = false;
    const held: (() => void)[] = [];
    const store: Store = {
      round(r) {
        const reply = memory.round(r);
        if (!hold) return reply;
        return new Promise<RoundReply>((resolve) => held.push(() => resolve(reply)));
      },
    };
    const l = new Limiter({ podId: "p0" }, store, clock);
    await l.start();
    l.setFamily("k:", { algorithm: "sliding_window", requestsPerMinute: 60_000_000 });
    expect((await l.check("k:a")).kind).toBe("allow");
    // the idle credit (renewed by its admit's push at 44.9 s, trusted 45 s) lapses and the view is
    // from the previous minute: the next request waits for a sync
    await clock.advanceAsync(91_000);
    hold = true;
    const pending = l.check("k:a");
    for (let ms = 0; ms < 100; ms++) await clock.advanceAsync(1);
    // the round is late (not failed): before, the wait's timeout denied the request
    const d = await pending;
    expect(d.kind).toBe("allow");
    expect(l.outcomeCount("allowOverrun")).toBe(1);
    expect(l.outcomeCount("denyLocal")).toBe(0);
    hold = false;
    for (const f of held.splice(0)) f();
    await l.shutdown();
  });
});
