// A family's forgotten subjects leave their sync parts for its new ones: reset, never shared, and
// kept one idle time at most.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import { familyIdleMs } from "../../src/cluster/idle-sweep.js";
import { Limiter } from "../../src/cluster/limiter.js";
import type { RateKeyState } from "../../src/cluster/rate-key.js";
import { SyncPart } from "../../src/cluster/rate-key-parts.js";
import { ReplyView } from "../../src/cluster/reply-view.js";
import { SpareParts } from "../../src/cluster/spare-parts.js";
import type { SubjectTable } from "../../src/cluster/subjects.js";
import { MemoryStore } from "../../src/store/memory-store.js";

interface Internals {
  subjects: SubjectTable;
}

const PER_SECOND: RateLimitConfig = { algorithm: "fixed_window", requestsPerSecond: 10 };

function setup() {
  const clock = new ManualClock();
  const limiter = new Limiter({ podId: "p" }, new MemoryStore(clock), clock);
  limiter.setFamily("ip:", PER_SECOND);
  const subjects = (limiter as unknown as Internals).subjects;
  const family = subjects.families.get("ip:")!;
  return { clock, limiter, subjects, family };
}

async function idle(l: Limiter, clock: ManualClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 100) {
    clock.advance(Math.min(100, left));
    await l.syncNow();
  }
}

/** The fields of a part as a new one has them (the waitlist object may stay, emptied). */
// the flags behind syncing, riding, awake and idleCredit included; the waiters' array is kept empty
function fields(p: SyncPart): Record<string, unknown> {
  const { waiting: _w, ...rest } = p as unknown as Record<string, unknown>;
  return rest;
}

describe("SpareParts", () => {
  it("gives back the part kept last, and drops parts kept before a time", () => {
    const spares = new SpareParts();
    const parts = [new SyncPart(), new SyncPart(), new SyncPart()];
    for (const [i, p] of parts.entries()) spares.give(p, 100 * i);
    expect(spares.oldestAt()).toBe(0);
    expect(spares.take()).toBe(parts[2]);
    spares.dropBefore(50);
    expect(spares.size).toBe(1);
    expect(spares.oldestAt()).toBe(100);
    expect(spares.take()).toBe(parts[1]);
    expect(spares.take()).toBeUndefined();
    expect(spares.oldestAt()).toBe(Number.POSITIVE_INFINITY);
  });

  it("keeps order and count through the compaction of many dropped parts", () => {
    const spares = new SpareParts();
    const parts = Array.from({ length: 5000 }, () => new SyncPart());
    for (const [i, p] of parts.entries()) spares.give(p, i);
    for (let t = 0; t <= 3000; t += 7) spares.dropBefore(t);
    expect(spares.size).toBe(5000 - 2996);
    expect(spares.oldestAt()).toBe(2996);
    expect(spares.take()).toBe(parts[4999]);
    spares.dropBefore(4999);
    expect(spares.size).toBe(0);
    expect(spares.take()).toBeUndefined();
  });
});

describe("SyncPart.reset", () => {
  it("leaves every field as a new part has it, the view kept as the spare", () => {
    const used = new SyncPart();
    Object.assign(used, {
      inflight: 3,
      syncing: true,
      waiters: 2,
      denied: 4,
      usedWindow: 9,
      sendSeq: 7,
      doneSeq: 6,
      lastSync: 123.5,
      ewma: 0.25,
      dueAt: 400,
      riding: true,
      awake: true,
      parkedRefillBelow: 5,
      idleCredit: true,
      creditWindowEnd: 1000,
      pushId: "abc",
      storeKey: "rl2:{s:ip:1}:x",
    });
    let woken = 0;
    used.add({ wake: () => woken++ });
    const view = new ReplyView(5, [{ idx: 1, cur: 2, prev: 3, tat: 0 }], 1);
    used.reset(view);
    expect(used.spareView).toBe(view);
    used.spareView = undefined;
    expect(fields(used)).toEqual(fields(new SyncPart()));
    expect([used.syncing, used.riding, used.awake, used.idleCredit]).toEqual([false, false, false, false]);
    used.notifyAll();
    expect(woken).toBe(0);
  });
});

describe("a family's spare parts", () => {
  it("a new subject takes a forgotten one's part: its own store key, push id and limit", async () => {
    const { clock, limiter, subjects, family } = setup();
    for (let i = 0; i < 10; i++) expect((await limiter.check("ip:old")).kind).toBe("allow");
    const old = subjects.rates.get("ip:old") as RateKeyState;
    const oldPushId = old.pushId;
    const oldView = old.view;
    await idle(limiter, clock, familyIdleMs(family, { leaseTtlMs: 3000 } as never) + 5000);
    expect(limiter.hasPolicy("ip:old")).toBe(false);
    expect(family.spares.size).toBe(1);
    // the forgotten state reads as new, and owns nothing any more
    expect(old.view.answered).toBe(false);
    expect(old.lastSync).toBe(Number.NEGATIVE_INFINITY);

    let admitted = 0;
    for (let i = 0; i < 12; i++) if ((await limiter.check("ip:new")).kind === "allow") admitted++;
    expect(admitted).toBe(10);
    expect(family.spares.size).toBe(0);
    const k = subjects.rates.get("ip:new") as RateKeyState;
    expect(k.storeKey).toContain("ip:new");
    expect(k.pushId).not.toBe(oldPushId);
    // the old state's view object now serves the new key, written by the new key's reply
    expect(k.view).toBe(oldView);
    expect(k.view.answered).toBe(true);
    expect(k.view.windows[0]!.cur).toBeGreaterThanOrEqual(10);
    await limiter.shutdown();
  });

  it("the forgotten subject coming back is a new state: the store's count holds its limit", async () => {
    const { clock, limiter, family } = setup();
    limiter.setFamily("m:", { algorithm: "fixed_window", requestsPerMinute: 6 });
    const minute = Math.ceil(clock.unixMs() / 60_000) * 60_000;
    clock.set(minute + 1000);
    for (let i = 0; i < 6; i++) expect((await limiter.check("m:1")).kind).toBe("allow");
    // forgotten within the minute? its idle time is a minute plus the lease: not before the next one
    await idle(limiter, clock, 66_000);
    expect(limiter.hasPolicy("m:1")).toBe(false);
    const minuteFamily = (limiter as unknown as Internals).subjects.families.get("m:")!;
    expect(minuteFamily.spares.size).toBe(1);
    expect(family.spares.size).toBe(0);
    let admitted = 0;
    for (let i = 0; i < 8; i++) if ((await limiter.check("m:1")).kind === "allow") admitted++;
    expect(admitted).toBe(6);
    expect(minuteFamily.spares.size).toBe(0);
    await limiter.shutdown();
  });

  it("parts are dropped one idle time after they were kept, the idle timer waking for it", async () => {
    const { clock, limiter, family } = setup();
    for (let s = 0; s < 20; s++) await limiter.check(`ip:${s}`);
    const idleMs = familyIdleMs(family, { leaseTtlMs: 3000 } as never);
    await idle(limiter, clock, idleMs + 5000);
    expect(family.spares.size).toBe(20);
    // no subject left: only the spare parts keep the sweep due
    const timers = limiter as unknown as { idle: { dueIn(now: number): number } };
    const due = timers.idle.dueIn(clock.monoMs());
    expect(due).toBeGreaterThan(0);
    expect(due).toBeLessThanOrEqual(idleMs);
    await idle(limiter, clock, idleMs + 200);
    expect(family.spares.size).toBe(0);
    expect(timers.idle.dueIn(clock.monoMs())).toBe(Number.POSITIVE_INFINITY);
    await limiter.shutdown();
  });

  it("a forgotten local-only subject leaves no part", async () => {
    const clock = new ManualClock();
    const limiter = new Limiter({ podId: "p" }, undefined, clock);
    limiter.setFamily("ip:", PER_SECOND);
    const family = (limiter as unknown as Internals).subjects.families.get("ip:")!;
    await limiter.check("ip:1");
    await idle(limiter, clock, 20_000);
    expect(limiter.hasPolicy("ip:1")).toBe(false);
    expect(family.spares.size).toBe(0);
    await limiter.shutdown();
  });

  it("churn of subjects through reused parts holds every subject's limit", async () => {
    const { clock, limiter, family } = setup();
    const idleMs = familyIdleMs(family, { leaseTtlMs: 3000 } as never);
    let reused = 0;
    for (let wave = 0; wave < 3; wave++) {
      clock.set(Math.ceil(clock.unixMs() / 1000) * 1000 + 10);
      const before = family.spares.size;
      for (let s = 0; s < 30; s++) {
        let admitted = 0;
        for (let i = 0; i < 13; i++)
          if ((await limiter.check(`ip:${wave}:${s}`)).kind === "allow") admitted++;
        expect(admitted).toBe(10);
      }
      reused += before - family.spares.size;
      await idle(limiter, clock, idleMs + 5000);
      expect(family.spares.size).toBe(30);
    }
    expect(reused).toBe(60);
    await limiter.shutdown();
  });

  it("property: with and without spare parts, the same requests get the same decisions", async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("check" as const),
        s: fc.integer({ min: 0, max: 5 }),
        n: fc.integer({ min: 1, max: 14 }),
      }),
      fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 9000 }) }),
    );
    let reused = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const runs = [true, false].map((spares) => {
          const clock = new ManualClock();
          const limiter = new Limiter({ podId: "p" }, new MemoryStore(clock), clock);
          limiter.setFamily("ip:", { algorithm: "sliding_window", requestsPerSecond: 10 });
          const family = (limiter as unknown as Internals).subjects.families.get("ip:")!;
          const take = family.spares.take.bind(family.spares);
          family.spares.take = () => {
            if (!spares) return undefined;
            const part = take();
            if (part !== undefined) reused++;
            return part;
          };
          return { clock, limiter, family, decisions: [] as string[] };
        });
        // a fixed tail makes one reuse certain in every run: a subject forgotten, then a new one
        const tail = [
          { kind: "check" as const, s: "tail-a", n: 1 },
          { kind: "wait" as const, ms: 9000 },
          { kind: "check" as const, s: "tail-b", n: 1 },
        ];
        for (const o of [...ops, ...tail]) {
          for (const r of runs) {
            if (o.kind === "wait") await idle(r.limiter, r.clock, o.ms);
            else
              for (let i = 0; i < o.n; i++) {
                const d = await r.limiter.check(`ip:${o.s}`);
                r.decisions.push(d.kind === "deny" ? `deny ${d.reason}` : d.kind);
              }
          }
        }
        expect(runs[0]!.decisions).toEqual(runs[1]!.decisions);
        // and the same syncs: a part carrying its old subject's counters would sync at other times
        const syncs = runs.map(
          (r) => (r.limiter as unknown as { exchange: { keySyncs: number } }).exchange.keySyncs,
        );
        expect(syncs[0]).toBe(syncs[1]);
        for (const r of runs) await r.limiter.shutdown();
      }),
      { numRuns: 30 },
    );
    // forgotten subjects' parts did serve new ones: the tail's at least, in each of the 30 runs
    expect(reused).toBeGreaterThanOrEqual(30);
  }, 60_000);
});
