import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { type Deadline, WaitDeadlines } from "../../src/cluster/wait-deadlines.js";

/** A deadline that records when it expired. */
function deadline(due: number, log: Array<[string, number]>, name: string, clock: ManualClock): Deadline {
  return { due, slot: -1, expire: () => log.push([name, clock.monoMs()]) };
}

describe("WaitDeadlines", () => {
  it("expires each deadline once, in order, under one pending timer", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const log: Array<[string, number]> = [];
    const dues = [50, 10, 30, 20, 40, 10];
    for (const [i, ms] of dues.entries()) deadlines.add(deadline(t0 + ms, log, `d${i}`, clock));
    expect(deadlines.size).toBe(6);
    // armed for the earliest only: adding later deadlines arms nothing more
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(100);
    expect(log.map(([, at]) => at - t0)).toEqual([10, 10, 20, 30, 40, 50]);
    expect(new Set(log.map(([name]) => name)).size).toBe(6);
    expect(deadlines.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a cancelled deadline never expires; the others keep their order", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const log: Array<[string, number]> = [];
    const ds = Array.from({ length: 40 }, (_, i) => deadline(t0 + ((i * 7) % 40) + 1, log, `d${i}`, clock));
    for (const d of ds) deadlines.add(d);
    // cancel every third, the earliest among them
    const cancelled = ds.filter((_, i) => i % 3 === 0);
    for (const d of cancelled) deadlines.cancel(d);
    deadlines.cancel(cancelled[0] as Deadline); // twice: a no-op
    expect(deadlines.size).toBe(40 - cancelled.length);
    clock.advance(50);
    const names = log.map(([name]) => name);
    expect(names).toHaveLength(40 - cancelled.length);
    for (const i of [0, 3, 6, 39]) expect(names).not.toContain(`d${i}`);
    const times = log.map(([, at]) => at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const [name, at] of log) expect(at).toBe((ds[Number(name.slice(1))] as Deadline).due);
  });

  it("an earlier deadline added later re-arms the timer for it", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const log: Array<[string, number]> = [];
    deadlines.add(deadline(t0 + 100, log, "late", clock));
    deadlines.add(deadline(t0 + 5, log, "early", clock));
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(5);
    expect(log).toEqual([["early", t0 + 5]]);
    clock.advance(95);
    expect(log).toEqual([
      ["early", t0 + 5],
      ["late", t0 + 100],
    ]);
  });

  it("an expiry that adds its deadline again runs on the next timer, not in the same one", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const runs: number[] = [];
    const d: Deadline = {
      due: t0 + 10,
      slot: -1,
      expire: () => {
        runs.push(clock.monoMs() - t0);
        if (runs.length < 3) {
          d.due = clock.monoMs(); // a poll: due at once
          deadlines.add(d);
        }
      },
    };
    deadlines.add(d);
    clock.advance(10);
    // the manual clock fires a 0 ms timer within the same advance, yet as a timer of its own
    expect(runs).toEqual([10, 10, 10]);
    expect(deadlines.size).toBe(0);
  });

  it("an expiry that throws does not keep the others from expiring", async () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const log: Array<[string, number]> = [];
    const boom = new Error("expire failed");
    deadlines.add({
      due: t0 + 10,
      slot: -1,
      expire: () => {
        throw boom;
      },
    });
    deadlines.add(deadline(t0 + 10, log, "after", clock));
    const thrown: unknown[] = [];
    const onError = (e: unknown) => thrown.push(e);
    process.on("uncaughtException", onError);
    try {
      clock.advance(10);
      expect(log).toEqual([["after", t0 + 10]]);
      await new Promise<void>((r) => setImmediate(r));
    } finally {
      process.off("uncaughtException", onError);
    }
    expect(thrown).toEqual([boom]);
  });

  it("keeps up with thousands of deadlines added, cancelled and expired at random", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const expired: Deadline[] = [];
    const live = new Set<Deadline>();
    for (let step = 0; step < 5000; step++) {
      const now = clock.monoMs();
      const d: Deadline = {
        due: now + Math.floor(rand() * 50),
        slot: -1,
        expire: () => {
          expect(clock.monoMs()).toBe(d.due);
          expect(live.has(d)).toBe(true);
          live.delete(d);
          expired.push(d);
        },
      };
      deadlines.add(d);
      live.add(d);
      if (rand() < 0.5) {
        const victim = [...live][Math.floor(rand() * live.size)] as Deadline;
        deadlines.cancel(victim);
        live.delete(victim);
      }
      if (rand() < 0.3) clock.advance(Math.floor(rand() * 5));
      expect(deadlines.size).toBe(live.size);
    }
    clock.advance(100);
    expect(live.size).toBe(0);
    expect(deadlines.size).toBe(0);
    expect(expired.length).toBeGreaterThan(1000);
  });
});
