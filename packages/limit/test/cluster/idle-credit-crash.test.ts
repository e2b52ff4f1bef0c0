// A replica that crashes holding idle credit (a minute's lease far below the limit) loses the admits
// it had not pushed, but the store keeps their units reserved until the lease ends: a fixed window
// never admits more than its limit, and the survivor gets the rest once the lease is gone.

import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { Store } from "../../src/store/types.js";

const LIMIT = 100;
const MINUTE = 60_000;

it("a replica crashing with unpushed admits from idle credit: no window over its limit", {
  timeout: 30_000,
}, async () => {
  const clock = new ManualClock();
  const memory = new MemoryStore(clock);
  let crashed = false;
  let pushedByA = 0;
  // after the crash nothing from pod A reaches the store: its rounds never end
  const storeA: Store = {
    round(r) {
      if (crashed) return new Promise(() => {});
      for (const rate of r.rates) pushedByA += rate.hits + rate.hitsOld;
      return memory.round(r);
    },
  };
  const a = new Limiter({ podId: "A" }, storeA, clock);
  const b = new Limiter({ podId: "B" }, memory, clock);
  await a.start();
  await b.start();
  const policy = { algorithm: "fixed_window", requestsPerMinute: LIMIT } as const;
  a.setPolicy("api", policy);
  b.setPolicy("api", policy);
  // start on a minute boundary, so every admit of A falls in the first window
  await clock.advanceAsync(MINUTE - (clock.unixMs() % MINUTE));
  const start = clock.unixMs();
  const perWindow = new Map<number, number>();
  const count = (at: number) => {
    const w = Math.floor((at - start) / MINUTE);
    perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
  };
  let admittedByA = 0;
  // one a second, until A holds admits it has not pushed (each push renews its credit)
  for (let s = 0; s < 40 && (s < 20 || admittedByA - pushedByA < 2); s++) {
    const d = a.tryCheck("api") ?? (await a.check("api"));
    expect(d.kind).toBe("allow");
    admittedByA++;
    count(clock.unixMs());
    await clock.advanceAsync(1000);
  }
  crashed = true;
  const lost = admittedByA - pushedByA;
  // the crash loses admits made from idle credit (at most that credit, under half the limit)
  expect(lost).toBeGreaterThan(0);
  expect(lost).toBeLessThanOrEqual(LIMIT / 2);
  // B asks ten times a second for three minutes
  for (let ms = 0; ms < 3 * MINUTE; ms += 100) {
    const d = b.tryCheck("api") ?? (await b.check("api"));
    if (d.kind === "allow") count(clock.unixMs());
    await clock.advanceAsync(100);
  }
  for (const [, n] of perWindow) expect(n).toBeLessThanOrEqual(LIMIT);
  // the first window: A's unpushed admits stay reserved; every later one is B's in full
  expect(perWindow.get(0)).toBeGreaterThan(LIMIT - 10);
  expect(perWindow.get(1)).toBe(LIMIT);
  expect(perWindow.get(2)).toBe(LIMIT);
  await b.shutdown();
});
