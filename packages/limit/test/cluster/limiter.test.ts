import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import {
  InvalidCostError,
  InvalidOptionError,
  InvalidPolicyError,
  LimiterClosedError,
} from "../../src/cluster/errors.js";
import {
  concurrencyStoreKey,
  configHash,
  rateStoreKey,
  registryStoreKey,
  subjectTag,
} from "../../src/cluster/keys.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { SeededRandom } from "../../src/cluster/prng.js";
import { Simulation } from "../../src/cluster/simulation.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10, localAllowance: 0.8 } as const;

function limiterOn(clock = new ManualClock()) {
  const store = new MemoryStore(clock);
  return { clock, store, limiter: new Limiter({ service: "t", podId: "p" }, store, clock) };
}

describe("store keys", () => {
  it("shares one hash tag per subject and follows the key layout of docs/protocol.md#s3-4", () => {
    expect(rateStoreKey("svc", "user-1", "00ab")).toBe("rl2:{svc:user-1}:00ab");
    expect(concurrencyStoreKey("svc", "user-1", 5)).toBe("cc2:{svc:user-1}:5");
    expect(registryStoreKey("svc")).toBe("rl2:{svc}:pods");
  });

  it("digests subjects that could break the tag, with a bounded length and no collisions", () => {
    const odd = [
      "a{b}",
      "line\nbreak",
      "x".repeat(10_000),
      "\u0000\u00ff binary",
      "=looks-like-a-digest",
      "émoji 🎉",
    ];
    const tags = new Set<string>();
    for (const s of odd) {
      const tag = subjectTag(s);
      expect(tag).toMatch(/^=[A-Za-z0-9_-]{43}$/);
      tags.add(tag);
      const key = rateStoreKey("svc", s, "0".repeat(16));
      expect(key.length).toBeLessThan(100);
      expect(key.match(/\{/g)).toHaveLength(1);
    }
    expect(tags.size).toBe(odd.length);
    expect(subjectTag("plain:key/1")).toBe("plain:key/1");
  });

  it("a service with a colon cannot alias another service's subject", () => {
    expect(rateStoreKey("a:b", "c", "h")).not.toBe(rateStoreKey("a", "b:c", "h"));
  });

  it("hashes the config with 64-bit FNV-1a (16 hex digits) and changes with any limit", () => {
    const h = configHash(0, [{ limit: 10, windowMs: 1000, burst: 10 }]);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(configHash(0, [])).toBe("af63bd4c8601b7df"); // FNV-1a of the single byte 0
    expect(configHash(0, [{ limit: 11, windowMs: 1000, burst: 11 }])).not.toBe(h);
    expect(configHash(1, [{ limit: 10, windowMs: 1000, burst: 10 }])).not.toBe(h);
  });
});

describe("bad input", () => {
  it("rejects an empty subject in setPolicy; check on it is unlimited", async () => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("", FIXED_10)).toThrow(InvalidPolicyError);
    expect(await limiter.check("")).toEqual({ kind: "unlimited" });
  });

  it.each([
    ["requestsPerSecond", -1],
    ["requestsPerMinute", Number.NaN],
    ["requestsPerHour", Number.POSITIVE_INFINITY],
    ["burstSize", -3],
  ])("rejects %s = %s naming the field", (field, value) => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("k", { requestsPerSecond: 5, [field]: value })).toThrow(
      expect.objectContaining({ name: "InvalidPolicyError", field }),
    );
    expect(limiter.hasPolicy("k")).toBe(false);
  });

  it("rejects a negative or NaN maxConcurrent and an unknown algorithm", () => {
    const { limiter } = limiterOn();
    expect(() => limiter.setPolicy("k", null, -1)).toThrow(/maxConcurrent/);
    expect(() => limiter.setPolicy("k", null, Number.NaN)).toThrow(/maxConcurrent/);
    expect(() =>
      limiter.setPolicy("k", { algorithm: "leaky" as "fixed_window", requestsPerSecond: 1 }),
    ).toThrow(/algorithm/);
  });

  it("clamps tuning out of range instead of failing", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", {
      requestsPerSecond: 5,
      syncIntervalMs: -5,
      cacheTtlMs: Number.NaN,
      localAllowance: -1,
    });
    expect(limiter.hasPolicy("k")).toBe(true);
    expect((await limiter.check("k")).kind).toBe("allow");
  });

  it("syncPolicies changes nothing when one entry is bad", () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("keep", FIXED_10);
    expect(() =>
      limiter.syncPolicies([
        { subject: "new", rateLimits: FIXED_10 },
        { subject: "bad", rateLimits: { requestsPerSecond: -1 } },
      ]),
    ).toThrow(InvalidPolicyError);
    expect(limiter.hasPolicy("keep")).toBe(true);
    expect(limiter.hasPolicy("new")).toBe(false);
  });

  it.each([1.5, -1, Number.NaN, Number.POSITIVE_INFINITY])("cost %s is a RangeError", async (cost) => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10);
    expect(() => limiter.tryCheck("k", cost)).toThrow(InvalidCostError);
    await expect(limiter.check("k", cost)).rejects.toBeInstanceOf(RangeError);
    await expect(limiter.check("unknown", cost)).rejects.toBeInstanceOf(InvalidCostError);
  });

  it("a cost above the smallest capacity is denied at once with a reason, not a wait", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", { ...FIXED_10, requestsPerMinute: 50 });
    const d = limiter.tryCheck("k", 11);
    expect(d).toMatchObject({ kind: "deny", reason: "costExceedsLimit" });
    if (d?.kind === "deny") expect(d.headers.retryAfter).toBeUndefined();
  });

  it("rejects bad options naming the field", () => {
    expect(() => new Limiter({ heartbeatMs: 0 })).toThrow(InvalidOptionError);
    expect(() => new Limiter({ service: "" })).toThrow(/service/);
    expect(() => new Limiter({ onStoreUnavailable: "panic" as "allow" })).toThrow(/onStoreUnavailable/);
  });

  it("rejects a pod id that would clash with the store's own hash fields", () => {
    // releasing pod "w1" would delete window 1 of every rate key; pod "L:x" would take pod x's lease,
    // "Q:x" its turn, "q" the ticket counter
    for (const podId of ["w1", "w12", "L:x", "Q:x", "q"])
      expect(() => new Limiter({ podId })).toThrow(/podId/);
    for (const podId of ["w", "w1a", "web-1", "xL:", "qq", "Q"])
      expect(new Limiter({ podId }).podId).toBe(podId);
  });

  it("check before start works (kick-driven syncs only); after shutdown it rejects", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10);
    expect((await limiter.check("k")).kind).toBe("allow");
    await limiter.shutdown();
    await expect(limiter.check("k")).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.check("unknown")).rejects.toBeInstanceOf(LimiterClosedError);
    expect(() => limiter.tryCheck("k")).toThrow(LimiterClosedError);
    await expect(limiter.acquire("k")).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.start()).rejects.toBeInstanceOf(LimiterClosedError);
    await limiter.shutdown(); // idempotent
  });

  it("a store that throws, hangs or answers malformed replies never crashes or hangs a check", async () => {
    const clock = new ManualClock();
    const throwing: Store = {
      round() {
        throw new Error("boom");
      },
    };
    const hanging: Store = { round: () => new Promise<RoundReply>(() => {}) };
    const malformed: Store = { round: async (_r: RoundRequest) => ({ rates: [], concurrency: [] }) };
    for (const store of [throwing, hanging, malformed]) {
      const limiter = new Limiter({ podId: "p", roundTimeoutMs: 50 }, store, clock);
      limiter.setPolicy("k", FIXED_10);
      const pending = limiter.check("k");
      await clock.advanceAsync(100);
      const d = await pending;
      expect(["allow", "deny"]).toContain(d.kind);
      await clock.advanceAsync(100);
      expect(limiter.syncFailures()).toBeGreaterThan(0);
    }
  });
});

describe("decisions", () => {
  it("tryCheck: undefined for an unknown subject, unlimited for a concurrency-only one, no promise", () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("cc", null, 3);
    expect(limiter.tryCheck("nobody")).toBeUndefined();
    expect(limiter.tryCheck("cc")).toEqual({ kind: "unlimited" });
    limiter.setPolicy("k", FIXED_10);
    const first = limiter.tryCheck("k"); // cold credit: decided without waiting
    expect(first).toMatchObject({ kind: "allow" });
    expect(first).not.toBeInstanceOf(Promise);
  });

  it("tryAdmit: tryCheck's answers as booleans, undefined when undecided, the same errors", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("cc", null, 3);
    expect(limiter.tryAdmit("nobody")).toBeUndefined();
    expect(limiter.tryAdmit("cc")).toBe(true);
    expect(() => limiter.tryAdmit("cc", 1.5)).toThrow(InvalidCostError);
    // local-only: the same sequence as tryCheck's test below, counted the same way
    const clock = new ManualClock();
    const local = new Limiter({ podId: "p" }, undefined, clock);
    local.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 3 });
    const got = [];
    for (let i = 0; i < 5; i++) got.push(local.tryAdmit("k"));
    expect(got).toEqual([true, true, true, false, false]);
    expect(local.outcomeCount("allowLocal")).toBe(3);
    expect(local.tryAdmit("k", 4)).toBe(false); // more than the limit: denied, never admitted
    clock.advance(1000);
    expect(local.tryAdmit("k")).toBe(true);
    await local.shutdown();
    expect(() => local.tryAdmit("k")).toThrow(LimiterClosedError);
  });

  it("tryAdmit spends the same credit as tryCheck, with no decision object", async () => {
    const runs = [];
    for (const admit of [true, false]) {
      const sim = await Simulation.create({
        replicas: 2,
        rateLimits: { algorithm: "sliding_window", requestsPerSecond: 20 },
      });
      const l = sim.limiters[0]!;
      const seq: Array<boolean | undefined> = [];
      for (let i = 0; i < 40; i++) {
        seq.push(admit ? l.tryAdmit(sim.subject) : toBool(l.tryCheck(sim.subject)));
        if (i % 8 === 7) await sim.sync();
      }
      runs.push({ seq, local: l.outcomeCount("allowLocal"), denied: l.outcomeCount("denyLocal") });
    }
    expect(runs[0]).toEqual(runs[1]);
    // credit runs out between syncs: both answer undefined (call check) at the same calls
    expect(runs[0]!.seq).toContain(true);
    expect(runs[0]!.seq).toContain(undefined);
  });

  it("cost counts units against the limit", async () => {
    const sim = await Simulation.create({
      replicas: 1,
      rateLimits: { algorithm: "fixed_window", requestsPerMinute: 10 },
    });
    sim.alignTo(60_000, 1);
    const l = sim.limiters[0]!;
    let units = 0;
    for (let i = 0; i < 10; i++) {
      if ((await l.check("k", 3)).kind === "allow") units += 3;
      await sim.sync();
    }
    expect(units).toBe(9);
    expect((await l.check("k", 1)).kind).toBe("allow");
    expect((await l.check("k", 1)).kind).toBe("deny");
  });

  it("local-only without a store: exact limit, Retry-After to the window end", async () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p" }, undefined, clock);
    limiter.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 3 });
    const kinds = [];
    for (let i = 0; i < 5; i++) kinds.push(limiter.tryCheck("k")?.kind);
    expect(kinds).toEqual(["allow", "allow", "allow", "deny", "deny"]);
    clock.advance(250);
    const d = limiter.tryCheck("k");
    expect(d).toMatchObject({ kind: "deny", headers: { retryAfter: 1, remaining: 0, limit: 3 } });
    clock.advance(750);
    expect(limiter.tryCheck("k")?.kind).toBe("allow");
    expect(limiter.hasStore()).toBe(false);
  });

  it("fail-open: a store down longer than cacheTtlMs admits everything as degraded", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const limiter = new Limiter({ podId: "p", onStoreUnavailable: "allow" }, store, clock);
    limiter.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 2, cacheTtlMs: 50 });
    store.setFailing(true);
    await limiter.syncNow(true);
    clock.advance(100);
    for (let i = 0; i < 10; i++) expect((await limiter.check("k")).kind).toBe("allow");
    expect(limiter.outcomeCount("allowDegraded")).toBe(10);
  });

  it("a slow store: the waiting request is decided on the last view as an overrun", async () => {
    const { clock, store, limiter } = limiterOn();
    limiter.setPolicy("k", { algorithm: "sliding_window", requestsPerSecond: 5, redisTimeoutMs: 10 });
    await limiter.syncNow(true);
    store.setLatency(40);
    for (let i = 0; i < 8; i++) {
      const pending = limiter.check("k");
      await clock.advanceAsync(50);
      await pending;
    }
    expect(limiter.outcomeCount("allowOverrun")).toBeGreaterThan(0);
  });
});

describe("lifecycle and the background loop", () => {
  it("start syncs and heartbeats; shutdown pushes, releases, leaves and leaves no timer", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const a = new Limiter({ service: "s", podId: "a" }, store, clock);
    const b = new Limiter({ service: "s", podId: "b" }, store, clock);
    for (const l of [a, b])
      l.setPolicy("k", { algorithm: "fixed_window", requestsPerMinute: 100, localAllowance: 0.8 });
    await a.start();
    await b.start();
    await clock.advanceAsync(1100);
    expect(a.replicas()).toBe(2);
    expect(clock.pendingTimers()).toBeGreaterThan(0);
    let admitted = 0;
    for (let i = 0; i < 30; i++) if ((await a.check("k")).kind === "allow") admitted++;
    expect(admitted).toBe(30);
    await a.shutdown();
    await b.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    // a's admits were pushed and its lease released: a newcomer sees 70 left, no reservations
    const key = rateStoreKey("s", "k", configHash(0, [{ limit: 100, windowMs: 60_000, burst: 100 }]));
    const reply = store.rate(
      {
        key,
        alg: 0,
        windows: [{ limit: 100, windowMs: 60_000, burst: 100 }],
        pod: "c",
        hits: 0,
        hitsOld: 0,
        tOld: 0,
        unused: 0,
        want: 0,
        need: 0,
        allowance: 1,
        replicas: 1,
        leaseTtlMs: 3000,
      },
      clock.unixMs(),
    );
    expect(reply.others).toBe(0);
    expect(reply.avail).toBe(70);
    expect(
      store.heartbeat({ key: registryStoreKey("s"), pod: "c", windowMs: 3000, leave: false }, clock.unixMs())
        .replicas,
    ).toBe(1);
  });

  it("the loop charges admits made before a boundary to the window they were admitted in", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const sent: RoundRequest[] = [];
    const spy: Store = {
      round(r) {
        sent.push(r);
        return store.round(r);
      },
    };
    const l = new Limiter({ podId: "p", tickMs: 60_000, slowSyncMs: 60_000 }, spy, clock);
    l.setPolicy("k", {
      algorithm: "fixed_window",
      requestsPerSecond: 100,
      localAllowance: 0.8,
      syncIntervalMs: 10_000,
    });
    await l.start();
    await clock.advanceAsync(500);
    for (let i = 0; i < 4; i++) expect((await l.check("k")).kind).toBe("allow");
    await clock.advanceAsync(500); // the boundary wake (2 ms before the second) snapshots the admits
    await l.syncNow(true);
    const push = sent.at(-1)!.rates[0]!;
    expect(push.hitsOld).toBeGreaterThan(0);
    expect(push.tOld % 1000).toBe(998);
    const d = await l.check("k");
    expect(d.kind).toBe("allow");
    if (d.kind === "allow") expect(d.headers.remaining).toBeGreaterThanOrEqual(98);
    await l.shutdown();
  });

  it("Symbol.asyncDispose shuts down", async () => {
    const { clock, limiter } = limiterOn();
    await limiter.start();
    await limiter[Symbol.asyncDispose]();
    expect(clock.pendingTimers()).toBe(0);
    await expect(limiter.check("x")).rejects.toBeInstanceOf(LimiterClosedError);
  });

  it("metrics carry the names of docs/protocol.md#s1-6, refreshed at most once a second", async () => {
    const { clock, limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10, 2);
    await limiter.check("k");
    const slot = await limiter.acquire("k");
    const m = limiter.metrics();
    const names = new Set(m.samples.map((s) => s.name));
    for (const n of [
      "resil_decisions_total",
      "resil_replicas",
      "resil_active",
      "resil_sync_seconds_count",
      "resil_sync_failures_total",
    ]) {
      expect(names).toContain(n);
    }
    expect(m.samples.find((s) => s.name === "resil_active")).toMatchObject({
      labels: { key: "k" },
      value: 1,
    });
    expect(limiter.metrics()).toBe(m);
    clock.advance(1000);
    expect(limiter.metrics()).not.toBe(m);
    if (slot.kind === "acquired") slot.slot.release();
  });
});

describe("concurrency", () => {
  it("local-only caps, idempotent release and dispose", async () => {
    const limiter = new Limiter({ podId: "p" }, undefined, new ManualClock());
    limiter.setPolicy("k", null, 2);
    const a = await limiter.acquire("k");
    const b = await limiter.acquire("k");
    expect([a.kind, b.kind]).toEqual(["acquired", "acquired"]);
    expect(await limiter.acquire("k")).toEqual({ kind: "denied", max: 2, retryAfter: 1 });
    if (a.kind !== "acquired" || b.kind !== "acquired") return;
    a.slot.release();
    a.slot.release();
    expect(limiter.active("k")).toBe(1);
    {
      using _held = b.slot;
    }
    expect(limiter.active("k")).toBe(0);
    expect(await limiter.acquire("nobody")).toEqual({ kind: "unlimited" });
  });

  it("cluster-wide cap across 3 replicas never exceeds max", async () => {
    const sim = await Simulation.create({ replicas: 3, maxConcurrent: 5 });
    let held = 0;
    for (let i = 0; i < 30; i++) {
      const r = await sim.limiters[i % 3]!.acquire("k");
      if (r.kind === "acquired") held++;
      await sim.sync();
      sim.clock.advance(20);
    }
    expect(held).toBeGreaterThanOrEqual(4);
    expect(held).toBeLessThanOrEqual(5);
  });
});

describe("SeededRandom", () => {
  it("replays the same sequence and has the right Poisson mean", () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    for (let i = 0; i < 10; i++) expect(a.next()).toBe(b.next());
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += a.poisson(0.4);
    expect(sum / 20_000).toBeGreaterThan(0.37);
    expect(sum / 20_000).toBeLessThan(0.43);
  });
});

function toBool(d: { kind: string } | undefined): boolean | undefined {
  return d === undefined ? undefined : d.kind !== "deny";
}
