// Idle eviction of family subjects: after the stated idle time, never while they hold anything.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { ConcurrencyKeyState } from "../../src/cluster/concurrency-key.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import type { Slot } from "../../src/cluster/decision.js";
import { familyIdleMs } from "../../src/cluster/idle-sweep.js";
import { Limiter } from "../../src/cluster/limiter.js";
import type { RateKeyState } from "../../src/cluster/rate-key.js";
import type { SubjectTable } from "../../src/cluster/subjects.js";
import { MemoryStore } from "../../src/store/memory-store.js";

interface Internals {
  subjects: SubjectTable;
}

function setup(store = true) {
  const clock = new ManualClock();
  const memory = new MemoryStore(clock);
  const limiter = new Limiter({ podId: "p" }, store ? memory : undefined, clock);
  return { clock, memory, limiter, subjects: (limiter as unknown as Internals).subjects };
}

/** Advances `ms` in 10 ms steps, with a round (and an idle sweep) after each, as the loop would. */
async function idle(l: Limiter, clock: ManualClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 10) {
    clock.advance(Math.min(10, left));
    await l.syncNow();
  }
}

const PER_SECOND: RateLimitConfig = { requestsPerSecond: 10 };

describe("idle eviction", () => {
  it("states the idle time: the longest window plus the lease, at least a concurrency lease with a cap", () => {
    const { limiter, subjects } = setup();
    limiter.setFamily("a:", { requestsPerSecond: 5, requestsPerMinute: 100 });
    limiter.setFamily("b:", null, 3);
    const options = { leaseTtlMs: 3000 } as Parameters<typeof familyIdleMs>[1];
    expect(familyIdleMs(subjects.families.get("a:")!, options)).toBe(63_000);
    expect(familyIdleMs(subjects.families.get("b:")!, options)).toBe(5000);
  });

  it("a family subject goes after its idle time from its last sync, not before; explicit ones stay", async () => {
    const { clock, limiter } = setup();
    limiter.setFamily("ip:", PER_SECOND);
    limiter.setPolicy("named", PER_SECOND);
    expect((await limiter.check("ip:1")).kind).toBe("allow");
    expect((await limiter.check("named")).kind).toBe("allow");
    // idle 4000 ms after its last sync (the credit given back within two slow syncs of its use); a
    // busy subject is looked at again within 1 s
    await idle(limiter, clock, 3900);
    expect(limiter.hasPolicy("ip:1")).toBe(true);
    await idle(limiter, clock, 3300);
    expect(limiter.hasPolicy("ip:1")).toBe(false);
    expect(limiter.hasPolicy("named")).toBe(true);
    await limiter.shutdown();
  });

  it("never while a slot is held; a local-only subject goes too, its counts kept", async () => {
    const { clock, limiter } = setup(false);
    limiter.setFamily("job:", { algorithm: "fixed_window", requestsPerMinute: 3 }, 1);
    const slot = await limiter.acquire("job:1");
    expect(slot.kind).toBe("acquired");
    for (let i = 0; i < 3; i++) expect(limiter.tryAdmit("job:1")).toBe(true);
    await idle(limiter, clock, 70_000);
    expect(limiter.hasPolicy("job:1")).toBe(true);
    if (slot.kind === "acquired") slot.slot.release();
    clock.set(Math.ceil(clock.unixMs() / 60_000) * 60_000 - 5000); // 5 s before the minute ends
    await limiter.syncNow();
    expect(limiter.hasPolicy("job:1")).toBe(false);
  });

  it("a local-only subject used every 1 to 30 s is kept, whatever minute boundaries its uses cross", async () => {
    // its admits from credit leave no time behind; the sweep must still see it busy (a key let go and
    // made again at each look would cost every request of 100,000 keys met every 20 s a new state)
    for (const gapMs of [1000, 20_000, 30_000]) {
      const { clock, limiter, subjects } = setup(false);
      limiter.setFamily("k:", {
        algorithm: "sliding_window",
        requestsPerMinute: 2_000_000_000,
        localAllowance: 0.8,
      });
      const first = (limiter.tryCheck("k:1") ?? (await limiter.check("k:1"))).kind;
      expect(first).toBe("allow");
      const state = subjects.rates.get("k:1");
      for (let t = 100; t < 300_000; t += 100) {
        clock.advance(100);
        await limiter.syncNow();
        if (t % gapMs === 0) expect(limiter.tryCheck("k:1")?.kind).toBe("allow");
      }
      expect(subjects.rates.get("k:1")).toBe(state);
      await limiter.shutdown();
    }
  });

  it("an evicted subject that returns starts from the store's count of its windows", async () => {
    const { clock, limiter } = setup();
    // 12 a second and a minute, sliding: evicted about 64 s after its last use (63 s after the sync
    // as the next second opened), when the previous minute still weighs 55/60 of its 12
    limiter.setFamily("u:", { algorithm: "sliding_window", requestsPerSecond: 12, requestsPerMinute: 12 });
    clock.set(Math.ceil(clock.unixMs() / 60_000) * 60_000 + 1000);
    let admitted = 0;
    for (let i = 0; i < 15; i++) if ((await limiter.check("u:1")).kind === "allow") admitted++;
    expect(admitted).toBe(12);
    const usedAt = clock.unixMs();
    while (limiter.hasPolicy("u:1") && clock.unixMs() - usedAt < 80_000) await idle(limiter, clock, 100);
    expect(limiter.hasPolicy("u:1")).toBe(false);
    expect(clock.unixMs() - usedAt).toBeGreaterThanOrEqual(63_000);
    admitted = 0;
    for (let i = 0; i < 5; i++) if ((await limiter.check("u:1")).kind === "allow") admitted++;
    expect(admitted).toBeLessThanOrEqual(2); // a fresh start would admit 5
    // and a fresh minute gives it its limit again
    await idle(limiter, clock, 60_000);
    admitted = 0;
    for (let i = 0; i < 5; i++) if ((await limiter.check("u:1")).kind === "allow") admitted++;
    expect(admitted).toBe(5);
    await limiter.shutdown();
  });

  it("property: evicted only idle, with no credit, pending hits, slot or waiter; always once idle", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("check" as const), n: fc.integer({ min: 1, max: 12 }) }),
      fc.record({ kind: fc.constant("acquire" as const) }),
      fc.record({ kind: fc.constant("release" as const) }),
      fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 6000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.boolean(), async (ops, withStore) => {
        const { clock, limiter, subjects } = setup(withStore);
        limiter.setFamily("s:", { algorithm: "fixed_window", requestsPerSecond: 10 }, 2);
        const idleMs = familyIdleMs(subjects.families.get("s:")!, { leaseTtlMs: 3000 } as never);
        const held: Slot[] = [];
        const remove = subjects.remove.bind(subjects);
        let evictions = 0;
        subjects.remove = (subject: string) => {
          const k = subjects.rates.get(subject) as RateKeyState;
          const c = subjects.caps.get(subject) as ConcurrencyKeyState;
          const now = clock.monoMs();
          expect(held.length).toBe(0);
          expect(c.active).toBe(0);
          expect(k.waiters + c.waiters).toBe(0);
          if (!k.localOnly) {
            expect(k.unused() < 1 || now >= k.validUntil).toBe(true);
            expect(k.hasUnpushed() || k.inflight > 0 || k.syncing).toBe(false);
          }
          expect(now - Math.max(k.lastSync, k.view.at, c.lastSync)).toBeGreaterThanOrEqual(idleMs);
          evictions++;
          remove(subject);
        };
        for (const o of ops) {
          if (o.kind === "check") {
            for (let i = 0; i < o.n; i++) limiter.tryCheck("s:1") ?? (await limiter.check("s:1"));
          } else if (o.kind === "acquire") {
            const r = await limiter.acquire("s:1");
            if (r.kind === "acquired") held.push(r.slot);
          } else if (o.kind === "release") held.pop()?.release();
          else await idle(limiter, clock, o.ms);
        }
        for (const s of held.splice(0)) s.release();
        // idle time after the last sync, which comes while credit is trusted after the last use (2.25 s)
        await idle(limiter, clock, idleMs + 3500);
        expect(limiter.hasPolicy("s:1")).toBe(false);
        if (ops.some((o) => o.kind === "check" || o.kind === "acquire"))
          expect(evictions).toBeGreaterThanOrEqual(1);
        await limiter.shutdown();
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it("MemoryStore drops expired keys by time, not by operation count", async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const l = new Limiter({ podId: "p" }, store, clock);
    l.setFamily("k:", PER_SECOND);
    for (let i = 0; i < 50; i++) await l.check(`k:${i}`);
    expect(store.keyCount).toBeGreaterThanOrEqual(50);
    await idle(l, clock, 10_000); // rate key TTL: 2 x 1000 + 3000 + 1000
    // the registry remains (heartbeats); every rate key went, with a handful of operations since
    expect(store.keyCount).toBe(1);
    await l.shutdown();
  });
});
