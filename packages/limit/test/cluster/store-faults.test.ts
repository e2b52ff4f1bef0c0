// A slow, stalled, failing or restarted store (manual clock): the bounds of docs/protocol.md#s4.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";
import { replicasOn, storeCount } from "./store-probe.js";

const FIXED_100 = { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 } as const;
const PER_MINUTE = { algorithm: "fixed_window", requestsPerMinute: 100, localAllowance: 0.8 } as const;
const MINUTE_SPEC = [{ limit: 100, windowMs: 60_000, burst: 100 }];

/** Forwards to a store that can be swapped (an empty restart) and replies late on demand. */
class FaultyStore implements Store {
  lateReplies = 0;
  constructor(
    public inner: MemoryStore,
    private readonly clock: ManualClock,
  ) {}
  async round(request: RoundRequest): Promise<RoundReply> {
    const reply = await this.inner.round(request);
    if (this.lateReplies > 0) {
      this.lateReplies--;
      await new Promise<void>((resolve) => this.clock.setTimer(1500, resolve));
    }
    return reply;
  }
}

async function decide(l: Limiter): Promise<boolean> {
  return (l.tryCheck("k") ?? (await l.check("k"))).kind !== "deny";
}

function toNextSecond(clock: ManualClock, plusMs: number): void {
  clock.set((Math.floor(clock.unixMs() / 1000) + 1) * 1000 + plusMs);
}

describe("idempotent rounds", () => {
  it("a round applied but answered after roundTimeoutMs is resent and charged once", async () => {
    const clock = new ManualClock();
    const inner = new MemoryStore(clock);
    const store = new FaultyStore(inner, clock);
    const [l] = await replicasOn(store, clock, 1, FIXED_100);
    l!.setPolicy("k", PER_MINUTE);
    clock.set((Math.floor(clock.unixMs() / 60_000) + 1) * 60_000 + 10);
    await l!.syncNow(true);
    let admitted = 0;
    for (let i = 0; i < 30; i++) if (await decide(l!)) admitted++;
    store.lateReplies = 1;
    const late = l!.syncNow(true);
    await clock.advanceAsync(1600); // the round timed out at 1000 ms: reverted
    await late;
    expect(l!.syncFailures()).toBe(1);
    await l!.syncNow(true);
    expect(admitted).toBeGreaterThan(10);
    expect(storeCount(inner, clock, MINUTE_SPEC)).toBe(admitted);
    await l!.shutdown();
  });
});

describe("a store that stalls", () => {
  it("counts as failing once a round is unanswered longer than cacheTtlMs: fail-static, not waits", async () => {
    const clock = new ManualClock();
    const inner = new MemoryStore(clock);
    const replicas = await replicasOn(inner, clock, 4, FIXED_100);
    toNextSecond(clock, 10);
    inner.setLatency(5000);
    const stalled = replicas.map((l) => l.syncNow(true));
    await clock.advanceAsync(250);
    let decided = 0;
    let admitted = 0;
    for (let i = 0; i < 400; i++) {
      const d = replicas[i % 4]!.tryCheck("k");
      if (d !== undefined) decided++;
      if (d?.kind === "allow") admitted++;
    }
    expect(decided).toBe(400);
    expect(admitted).toBeLessThanOrEqual(100 + 3);
    expect(replicas[0]!.outcomeCount("allowDegraded")).toBeGreaterThan(0);
    await clock.advanceAsync(5000);
    await Promise.all(stalled);
    inner.setLatency(0);
    for (const l of replicas) await l.shutdown();
  });
});

describe("a slow store", () => {
  it("waits adapt to the measured round trip: with 4 replicas, no decision without a reply", async () => {
    const clock = new ManualClock();
    const inner = new MemoryStore(clock);
    const replicas = await replicasOn(inner, clock, 4, FIXED_100);
    inner.setLatency(40);
    toNextSecond(clock, 10);
    const pending: Promise<boolean>[] = [];
    for (let ms = 0; ms < 3000; ms++) {
      for (const l of replicas) pending.push(decide(l));
      if (ms % 20 === 0) for (const l of replicas) void l.syncNow(false);
      await clock.advanceAsync(1);
    }
    await clock.advanceAsync(500);
    await Promise.all(pending);
    for (const l of replicas) expect(l.outcomeCount("allowOverrun")).toBe(0);
    const sync = replicas.reduce((n, l) => n + l.outcomeCount("allowSync") + l.outcomeCount("denySync"), 0);
    expect(sync).toBeGreaterThan(0);
    inner.setLatency(0);
    for (const l of replicas) await l.shutdown();
  });
});

describe("an outage", () => {
  it("fail-static counts what the view knew was admitted in the window it starts in", async () => {
    const clock = new ManualClock();
    const inner = new MemoryStore(clock);
    const replicas = await replicasOn(inner, clock, 4, FIXED_100);
    toNextSecond(clock, 10);
    let admitted = 0;
    for (let i = 0; i < 80; i++) if (await decide(replicas[i % 4]!)) admitted++;
    for (const l of replicas) await l.syncNow(true);
    inner.setFailing(true);
    for (const l of replicas) await l.syncNow(true);
    await clock.advanceAsync(300);
    for (let i = 0; i < 400; i++) if (await decide(replicas[i % 4]!)) admitted++;
    expect(Math.floor(clock.unixMs() / 1000)).toBe(Math.floor((clock.unixMs() - 310) / 1000));
    // one view, shares rounded down: never past the limit (93 here; 95 with shares rounded up)
    expect(admitted).toBeLessThanOrEqual(100);
    expect(admitted).toBeGreaterThanOrEqual(90);
    inner.setFailing(false);
    for (const l of replicas) await l.shutdown();
  });

  it("a window's share ends once the store's window may be over, not once its earliest time says so", async () => {
    const clock = new ManualClock();
    const inner = new MemoryStore(clock);
    inner.setLatency(20); // every offset sample spans 20 ms: the store's clock is known within ±10 ms
    const limiter = new Limiter({ service: "t", podId: "p0" }, inner, clock);
    limiter.setPolicy("k", FIXED_100);
    const started = limiter.syncNow(true);
    await clock.advanceAsync(25);
    await started;
    toNextSecond(clock, 100);
    inner.setFailing(true);
    const perSecond = new Map<number, number>();
    const burst = (n: number) => {
      for (let i = 0; i < n; i++) {
        const d = limiter.tryCheck("k");
        if (d === undefined) throw new Error("a fail-static decision is synchronous");
        const s = Math.floor(clock.unixMs() / 1000); // the store's own second
        if (d.kind !== "deny") perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
      }
    };
    const failed = limiter.syncNow(true);
    await clock.advanceAsync(25);
    await failed;
    await clock.advanceAsync(400); // degraded: fail-static
    burst(30); // 70 of the window's 100 left unused
    toNextSecond(clock, 5); // the store's next second began 5 ms ago
    burst(150);
    await clock.advanceAsync(500);
    burst(150);
    // the closing window's 70 came on top of the next one's 100 (170 in one second)
    for (const [s, n] of perSecond) expect(n, `second ${s}`).toBeLessThanOrEqual(100);
    inner.setFailing(false);
    const closed = limiter.shutdown();
    await clock.advanceAsync(100);
    await closed;
  });

  it("an empty restart: the replica count does not drop for 3 heartbeats, recovery is paced", async () => {
    const clock = new ManualClock();
    const store = new FaultyStore(new MemoryStore(clock), clock);
    const replicas = await replicasOn(store, clock, 4, FIXED_100);
    expect(replicas[0]!.replicas()).toBe(4);
    store.inner.setFailing(true);
    for (const l of replicas) await l.syncNow(true);
    await clock.advanceAsync(1000);
    store.inner = new MemoryStore(clock); // restarted empty
    toNextSecond(clock, 100);
    await replicas[0]!.syncNow(true); // the first one back: the registry counts 1
    expect(replicas[0]!.replicas()).toBe(4);
    let admitted = 0;
    for (let i = 0; i < 200; i++) if (await decide(replicas[0]!)) admitted++;
    expect(admitted).toBeLessThanOrEqual(25); // its share, not the whole window
    for (let s = 0; s < 4; s++) {
      await clock.advanceAsync(1000);
      await replicas[0]!.syncNow(true);
    }
    expect(replicas[0]!.replicas()).toBe(1);
    for (const l of replicas) await l.shutdown();
  });
});
