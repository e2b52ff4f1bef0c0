// The sync maths as plain functions, without a Simulation: what is due, pacing, batch size, building a
// request and applying (or reverting) a reply.
import { describe, expect, it } from "vitest";
import { ConcurrencyKeyState } from "../../src/cluster/concurrency-key.js";
import {
  applyConcurrencyReply,
  buildConcurrencySend,
  MIN_CONCURRENCY_LEASE_MS,
} from "../../src/cluster/concurrency-sync.js";
import { type RateLimitConfig, ratePolicy, resolveOptions } from "../../src/cluster/config.js";
import { LocalWindows } from "../../src/cluster/local-counts.js";
import { RateKeyState } from "../../src/cluster/rate-key.js";
import {
  applyRateReply,
  batchSize,
  buildRateSend,
  pacingMs,
  revertRateSend,
} from "../../src/cluster/rate-sync.js";
import { concurrencyDue, nextBoundary, rateDue, snapshotBoundary } from "../../src/cluster/schedule.js";
import { StoreHealth } from "../../src/cluster/store-health.js";
import { blendRate, CREDIT_TRUST, type SyncEnv } from "../../src/cluster/sync-maths.js";
import type { RateReply } from "../../src/store/types.js";

// Local monotonic time starts at 0; store time is 1_000_000 ms ahead.
const STORE_START = 1_000_000;

function env(replicas = 1): SyncEnv {
  const health = new StoreHealth(0, STORE_START);
  health.replicaCount = replicas;
  health.recoveredAt = Number.NEGATIVE_INFINITY;
  return { options: resolveOptions({ service: "s", podId: "p" }), health, localWindows: new LocalWindows() };
}

function rateKey(cfg: RateLimitConfig): RateKeyState {
  return new RateKeyState("k", "rl2:{s:k}:0", ratePolicy(cfg)!, false);
}

function reply(over: Partial<RateReply> = {}): RateReply {
  return {
    now: STORE_START,
    kept: 0,
    avail: 100,
    granted: 0,
    direct: 0,
    others: 0,
    windows: [{ idx: 0, cur: 0, prev: 0, tat: 0 }],
    ...over,
  };
}

const SLIDING_1000 = { algorithm: "sliding_window", requestsPerSecond: 1000 } as const;

describe("blendRate", () => {
  it("starts at the sample's rate, then averages old and new (elapsed at least 1 ms)", () => {
    expect(blendRate(0, 10, 100)).toBe(0.1);
    expect(blendRate(0.1, 30, 100)).toBeCloseTo(0.2);
    expect(blendRate(0, 5, 0)).toBe(5);
  });
});

describe("pacing and batch size", () => {
  it("paces at half a sync interval, tighter for short windows and few replicas", () => {
    const k = rateKey(SLIDING_1000);
    expect(pacingMs(k, 1)).toBe(10); // 1000 ms x 1 / 100
    expect(pacingMs(k, 4)).toBe(40);
    expect(pacingMs(k, 50)).toBe(50); // half the 100 ms interval
  });
  it("asks for an even share of what frees in one pacing interval; none for a fixed window or below 2", () => {
    expect(batchSize(rateKey(SLIDING_1000), 4)).toBe(10); // 1000/s x 40 ms / 4 replicas
    expect(batchSize(rateKey({ ...SLIDING_1000, algorithm: "fixed_window" }), 4)).toBe(0);
    expect(batchSize(rateKey({ algorithm: "sliding_window", requestsPerSecond: 40 }), 4)).toBe(0);
  });
});

describe("building a rate request", () => {
  it("splits pending admits at the boundary snapshot and moves them in flight", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.admitted = 12;
    k.credit = 20;
    k.boundaryAdmitted = 5;
    k.boundaryTime = STORE_START - 2;
    const s = buildRateSend(e, k, 100);
    expect(s.request).toMatchObject({ hits: 7, hitsOld: 5, tOld: STORE_START - 2, pod: "p", replicas: 1 });
    expect(k.pushed).toBe(12);
    expect(k.inflight).toBe(12);
    expect(k.localExtra()).toBe(12);
    expect(s.request.unused).toBeLessThanOrEqual(8);
  });
  it("asks for nothing while recovering from an outage", () => {
    const e = env();
    e.health.recordFailure(new Error("down"), 0);
    const k = rateKey(SLIDING_1000);
    k.waiters = 3;
    const s = buildRateSend(e, k, 100);
    expect(s.request).toMatchObject({ want: 0, need: 0, batch: 0 });
  });
  it("asks for a batch only with requests waiting", () => {
    const e = env(4);
    const k = rateKey(SLIDING_1000);
    expect(buildRateSend(e, k, 100).request.batch).toBe(0);
    revertRateSend(buildRateSend(e, rateKey(SLIDING_1000), 100));
    const waiting = rateKey(SLIDING_1000);
    waiting.waiters = 1;
    expect(buildRateSend(e, waiting, 100).request.batch).toBe(10);
  });
});

describe("applying a rate reply", () => {
  it("sets credit absolute against admits at send, trusted for CREDIT_TRUST of the lease", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.admitted = 4;
    const s = buildRateSend(e, k, 100);
    k.admitted = 6; // admitted while the request was in flight
    applyRateReply(e, s, reply({ kept: 0, granted: 10 }), 110, false);
    expect(k.credit).toBe(14);
    expect(k.unused()).toBe(8);
    expect(k.refillBelow).toBe(5);
    expect(k.validUntil).toBe(100 + CREDIT_TRUST * e.options.leaseTtlMs);
    expect(k.view.answered).toBe(true);
    expect(k.exhaustedUntil).toBe(Number.NEGATIVE_INFINITY);
    expect(k.syncing).toBe(false);
  });
  it("a starved reply marks the key exhausted until a unit could be free, at most a sync interval", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    const s = buildRateSend(e, k, 100);
    // the window has room, other replicas hold it: their credit may come back within a sync interval
    const held = [{ idx: STORE_START / 1000, cur: 600, prev: 0, tat: 0 }];
    applyRateReply(e, s, reply({ avail: 0, others: 400, windows: held }), 110, false);
    expect(k.isExhausted(110)).toBe(true);
    expect(k.exhaustedUntil).toBeLessThanOrEqual(110 + k.policy.syncIntervalMs);
    expect(k.nothingToPush()).toBe(true);
  });
  it("a sliding window full of hits waits until one could be free, past a sync interval", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    const s = buildRateSend(e, k, 100);
    // 1000 hits in the second just begun: none frees before the next second's weight lets one go
    const full = [{ idx: STORE_START / 1000, cur: 1000, prev: 0, tat: 0 }];
    applyRateReply(e, s, reply({ avail: 0, windows: full }), 110, false);
    const until = k.exhaustedUntil + e.health.offset;
    expect(until).toBeGreaterThan(STORE_START + 1000);
    expect(until).toBeLessThan(STORE_START + 1010);
    expect(k.exhaustedUntil - 110).toBeGreaterThan(k.policy.syncIntervalMs);
  });
  it("a fixed window with no unit left waits for its end (its reset), however far", () => {
    const e = env();
    const k = rateKey({ algorithm: "fixed_window", requestsPerMinute: 100 });
    const s = buildRateSend(e, k, 100);
    const full = [{ idx: Math.floor(STORE_START / 60_000), cur: 100, prev: 0, tat: 0 }];
    applyRateReply(e, s, reply({ avail: 0, windows: full }), 110, false);
    // store time of the reset: the minute's end (before, capped at slowSyncMs: a round a second)
    expect(k.exhaustedUntil + e.health.offset).toBeCloseTo(
      (Math.floor(STORE_START / 60_000) + 1) * 60_000,
      6,
    );
    expect(k.exhaustedUntil - 110).toBeGreaterThan(e.options.slowSyncMs);
  });
  it("clears the boundary snapshot once the admits it marked were sent", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.admitted = 3;
    k.boundaryAdmitted = 3;
    const s = buildRateSend(e, k, 100);
    applyRateReply(e, s, reply({ granted: 5 }), 110, false);
    expect(k.hasBoundarySnapshot()).toBe(false);
  });
  it("a reverted send puts its admits back to pending", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.admitted = 9;
    const s = buildRateSend(e, k, 100);
    revertRateSend(s);
    expect(k.pushed).toBe(0);
    expect(k.inflight).toBe(0);
    expect(k.hasUnpushed()).toBe(true);
    expect(k.syncing).toBe(false);
  });
});

describe("what is due", () => {
  it("a key with waiters is due at once; an exhausted one with nothing to push is not", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.lastSync = 0;
    k.waiters = 1;
    expect(rateDue(e, k, 1, 1)).toBe(true);
    k.waiters = 0;
    k.exhaustedUntil = 50;
    expect(rateDue(e, k, 10, 1)).toBe(false);
  });
  it("a quiet key holding far more credit than its demand gives it back after slowSyncMs, when others could use it", () => {
    const e = env();
    const k = rateKey(SLIDING_1000);
    k.lastSync = 0;
    k.credit = 100;
    k.validUntil = 10_000;
    expect(k.isQuiet()).toBe(true);
    // far below the limit, its credit included: it lapses with the lease, no round trip
    expect(rateDue(e, k, e.options.slowSyncMs, 1)).toBe(false);
    k.view = { ...k.view, reservedOthers: 450 }; // 100 + 450 of 1000 held
    expect(rateDue(e, k, e.options.slowSyncMs - 1, 1)).toBe(false);
    expect(rateDue(e, k, e.options.slowSyncMs, 1)).toBe(true);
    expect(rateDue(e, k, e.options.slowSyncMs / 2, 0.5)).toBe(true);
  });
  it("a concurrency key syncs while acquiring, and not when idle with nothing held", () => {
    const e = env();
    const c = new ConcurrencyKeyState("k", "cc2:{s:k}:3", 3, ratePolicy(SLIDING_1000)!, false);
    c.lastSync = 0;
    expect(concurrencyDue(e, c, 5000, 1)).toBe(false);
    c.acquired = 2;
    c.active = 2;
    expect(concurrencyDue(e, c, 100, 1)).toBe(true);
  });
  it("the boundary snapshot marks unpushed admits just before the whole second", () => {
    const k = rateKey(SLIDING_1000);
    k.admitted = 4;
    expect(nextBoundary(STORE_START + 500)).toBe(STORE_START + 1000);
    expect(nextBoundary(STORE_START + 999)).toBe(STORE_START + 2000);
    expect(snapshotBoundary([k], STORE_START + 1000)).toBe(true);
    expect(k.boundaryAdmitted).toBe(4);
    expect(k.boundaryTime).toBe(STORE_START + 998);
  });
});

describe("concurrency sync", () => {
  it("reports active slots absolutely with a lease of at least MIN_CONCURRENCY_LEASE_MS", () => {
    const e = env(2);
    const c = new ConcurrencyKeyState("k", "cc2:{s:k}:3", 3, ratePolicy(SLIDING_1000)!, false);
    c.active = 2;
    c.acquired = 2;
    c.waiters = 1;
    const s = buildConcurrencySend(e, c, 100);
    expect(s.request).toMatchObject({ active: 2, need: 1, max: 3, replicas: 2 });
    expect(s.request.leaseTtlMs).toBe(MIN_CONCURRENCY_LEASE_MS);
    applyConcurrencyReply(e, s, { now: STORE_START, kept: 0, granted: 1, direct: 0, others: 0 }, false);
    expect(c.allowed).toBe(3);
    expect(c.acquiredAtSync).toBe(2);
    expect(c.validUntil).toBe(100 + CREDIT_TRUST * e.options.leaseTtlMs);
  });
});
