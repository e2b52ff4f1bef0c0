// start, the background loop, shutdown and metrics.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { LimiterClosedError } from "../../src/cluster/errors.js";
import { configHash, rateStoreKey, registryStoreKey } from "../../src/cluster/keys.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { formatPrometheus } from "../../src/cluster/metrics.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundRequest, Store } from "../../src/store/types.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10, localAllowance: 0.8 } as const;

function limiterOn(clock = new ManualClock()) {
  const store = new MemoryStore(clock);
  return { clock, store, limiter: new Limiter({ service: "t", podId: "p" }, store, clock) };
}

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
      "resil_slot_decisions_total",
      "resil_replicas",
      "resil_slots_active",
      "resil_store_failing",
      "resil_sync_seconds_count",
      "resil_sync_failures_total",
    ]) {
      expect(names).toContain(n);
    }
    // Bounded labels: no series per subject unless asked for.
    expect(names).not.toContain("resil_active");
    expect(m.samples.find((s) => s.name === "resil_slots_active")).toMatchObject({ value: 1 });
    expect(
      limiter.metrics({ perSubject: true }).samples.find((s) => s.name === "resil_active"),
    ).toMatchObject({
      labels: { key: "k" },
      value: 1,
    });
    // One check and one acquire: counted apart.
    const total = (name: string) =>
      m.samples
        .filter((s) => s.name === name && s.labels.outcome === "allow")
        .reduce((a, s) => a + s.value, 0);
    expect(total("resil_decisions_total")).toBe(1);
    expect(total("resil_slot_decisions_total")).toBe(1);
    expect(limiter.metrics()).toBe(m);
    clock.advance(1000);
    expect(limiter.metrics()).not.toBe(m);
    if (slot.kind === "acquired") slot.slot.release();
  });

  it("formatPrometheus writes HELP and TYPE once before each family", async () => {
    const { limiter } = limiterOn();
    limiter.setPolicy("k", FIXED_10);
    await limiter.check("k");
    const text = formatPrometheus(limiter.metrics());
    const lines = text.trimEnd().split("\n");
    const declared = new Set<string>();
    for (const line of lines) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
      if (type) {
        expect(declared.has(type[1]!), `${type[1]} declared twice`).toBe(false);
        declared.add(type[1]!);
        continue;
      }
      if (line.startsWith("# HELP ")) continue;
      const name = /^([a-z_]+)\{/.exec(line)![1]!;
      expect(
        [...declared].some((d) => name === d || name.startsWith(`${d}_`)),
        line,
      ).toBe(true);
    }
    expect(text).toContain("# TYPE resil_sync_seconds histogram");
    expect(text).toContain("# TYPE resil_decisions_total counter");
  });
});

describe("lifecycle: timers", () => {
  it("shutdown right after a boundary with a used key leaves no timer behind", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = new Limiter({ podId: "p" }, store, clock);
    l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: 100, localAllowance: 0.8 });
    await l.start();
    await clock.advanceAsync(500);
    expect((await l.check("k")).kind).toBe("allow");
    await clock.advanceAsync(498); // the boundary wake, 2 ms before the second: the key was used
    await l.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });
});
