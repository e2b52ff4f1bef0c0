// Small fixes of issue 15: closed limiter, clamped options, local-only memory, tuning-only
// republish, a slow store's concurrency wait, the expected replica count.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { LimiterClosedError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10, localAllowance: 0.8 } as const;

/** Records every request it forwards. */
class RecordingStore implements Store {
  readonly requests: RoundRequest[] = [];
  constructor(private readonly inner: Store) {}
  round(request: RoundRequest): Promise<RoundReply> {
    this.requests.push(request);
    return this.inner.round(request);
  }
}

function localEntries(limiter: Limiter): number {
  return (limiter as unknown as { localWindows: { size: number } }).localWindows.size;
}

describe("a closed limiter", () => {
  it("tryCheck and tryAdmit throw LimiterClosedError for every subject, like check", async () => {
    const limiter = new Limiter({ podId: "p" }, undefined, new ManualClock());
    limiter.setPolicy("capped", null, 3);
    await limiter.shutdown();
    for (const subject of ["unknown", "capped"]) {
      expect(() => limiter.tryCheck(subject)).toThrow(LimiterClosedError);
      expect(() => limiter.tryAdmit(subject)).toThrow(LimiterClosedError);
      await expect(limiter.check(subject)).rejects.toThrow(LimiterClosedError);
    }
  });
});

describe("option clamps", () => {
  it("timer and lease options are clamped to 2^31 - 1 ms, so Lua and timers can hold them", async () => {
    const clock = new ManualClock();
    const store = new RecordingStore(new MemoryStore(clock));
    const limiter = new Limiter(
      {
        podId: "p",
        leaseTtlMs: 1e19,
        heartbeatMs: 1e300,
        roundTimeoutMs: 1e12,
        slowSyncMs: 1e20,
        tickMs: 1e10,
      },
      store,
      clock,
    );
    limiter.setPolicy("k", FIXED_10);
    await limiter.syncNow(true);
    const req = store.requests.at(-1)!;
    expect(req.rates[0]!.leaseTtlMs).toBe(2 ** 31 - 1);
    expect(req.heartbeat!.windowMs).toBeLessThanOrEqual(3 * (2 ** 31 - 1));
    expect(limiter.tryAdmit("k")).toBe(true);
    await limiter.shutdown();
  });
});

describe("local-only entries", () => {
  it("live on their key: remove() and syncPolicies() forget them; an evicted subject's expire", () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p" }, undefined, clock);
    for (let i = 0; i < 2000; i++) {
      limiter.setPolicy(`s${i}`, FIXED_10);
      expect(limiter.tryAdmit(`s${i}`)).toBe(true);
    }
    expect(localEntries(limiter)).toBe(0); // held by the subjects, not by a table
    for (let i = 0; i < 9; i++) limiter.tryAdmit("s0");
    expect(limiter.tryAdmit("s0")).toBe(false);
    limiter.remove("s0");
    limiter.setPolicy("s0", FIXED_10);
    expect(limiter.tryAdmit("s0")).toBe(true); // a fresh window: the counts were forgotten
    for (let i = 0; i < 9; i++) limiter.tryAdmit("s1");
    limiter.syncPolicies([{ subject: "s1999", rateLimits: FIXED_10 }]);
    limiter.setPolicy("s1", FIXED_10);
    expect(limiter.tryAdmit("s1")).toBe(true);
    // a family subject evicted while its window runs keeps its counts until the windows are over
    limiter.setFamily("f:", FIXED_10);
    for (let i = 0; i < 10; i++) limiter.tryAdmit("f:a");
    clock.advance(4500);
    void limiter.syncNow(); // the idle sweep
    expect(limiter.hasPolicy("f:a")).toBe(false);
    expect(localEntries(limiter)).toBe(1);
    clock.advance(4001); // 2 x window + 1 s after the eviction, swept in 1 s slots
    void limiter.syncNow();
    expect(localEntries(limiter)).toBe(0);
  });
});

describe("tuning-only republish", () => {
  it("keeps rate credit and window counts (cacheTtlMs 200 -> 201 -> 202)", async () => {
    const clock = new ManualClock(1_750_000_000_000);
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ service: "t", podId: "p" }, store, clock);
    limiter.setPolicy("k", { ...FIXED_10, cacheTtlMs: 200 });
    await limiter.syncNow(true);
    let admitted = 0;
    for (let i = 0; i < 30; i++) {
      limiter.setPolicy("k", { ...FIXED_10, cacheTtlMs: 200 + i });
      const d = limiter.tryCheck("k") ?? (await limiter.check("k"));
      if (d.kind === "allow") admitted++;
    }
    expect(admitted).toBe(10);
    await limiter.shutdown();
  });

  it("keeps held slots across a tuning change and a cap change 5 -> 6", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ service: "t", podId: "p" }, store, clock);
    limiter.setPolicy("k", { cacheTtlMs: 200, localAllowance: 0.8 }, 5);
    await limiter.syncNow(true);
    const held = [];
    for (let i = 0; i < 8; i++) {
      const r = await limiter.acquire("k");
      if (r.kind === "acquired") held.push(r.slot);
    }
    expect(held).toHaveLength(5);
    limiter.setPolicy("k", { cacheTtlMs: 201, localAllowance: 0.8 }, 5);
    expect(limiter.active("k")).toBe(5);
    expect((await limiter.acquire("k")).kind).toBe("denied");
    limiter.setPolicy("k", { cacheTtlMs: 201, localAllowance: 0.8 }, 6);
    expect(limiter.active("k")).toBe(5);
    let more = 0;
    for (let i = 0; i < 4; i++) if ((await limiter.acquire("k")).kind === "acquired") more++;
    expect(more).toBe(1);
    for (const s of held) s.release();
    expect(limiter.active("k")).toBe(1);
    await limiter.shutdown();
  });
});

describe("a slow store", () => {
  it("a concurrency wait that times out with nothing in flight takes the replica's share", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ service: "t", podId: "p", expectedReplicas: 4 }, store, clock);
    limiter.setPolicy("k", { redisTimeoutMs: 10 }, 40);
    store.setLatency(50);
    const slow = limiter.syncNow(true); // the key is syncing: no cold slot
    const pending = limiter.acquire("k");
    await clock.advanceAsync(15);
    const r = await pending;
    expect(r.kind).toBe("acquired");
    await clock.advanceAsync(100);
    await slow;
    store.setLatency(0);
    await limiter.shutdown();
  });
});

describe("expectedReplicas", () => {
  it("is the replica count until the registry answers: 4 replicas on a dead store share the limit", async () => {
    const clock = new ManualClock(1_750_000_000_000);
    const store = new MemoryStore(clock);
    store.setFailing(true);
    const replicas = [0, 1, 2, 3].map(
      (i) => new Limiter({ service: "t", podId: `p${i}`, expectedReplicas: 4 }, store, clock),
    );
    for (const l of replicas) {
      l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 });
      await l.syncNow(true);
      expect(l.replicas()).toBe(4);
    }
    await clock.advanceAsync(1000 - (clock.unixMs() % 1000) + 300);
    let admitted = 0;
    for (let i = 0; i < 1000; i++) {
      const l = replicas[i % 4]!;
      const d = l.tryCheck("k") ?? (await l.check("k"));
      if (d.kind === "allow") admitted++;
    }
    expect(admitted).toBeLessThanOrEqual(100);
    expect(admitted).toBeGreaterThanOrEqual(96);
    store.setFailing(false);
    for (const l of replicas) await l.shutdown();
  });

  it("rejects a count that is not a whole number >= 1", () => {
    expect(() => new Limiter({ expectedReplicas: 0 })).toThrow(/expectedReplicas/);
    expect(() => new Limiter({ expectedReplicas: Number.NaN })).toThrow(/expectedReplicas/);
  });
});
