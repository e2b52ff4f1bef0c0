import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CoarseClock,
  exactMonoMs,
  MANUAL_CLOCK_START_MS,
  ManualClock,
  NEVER,
  SystemClock,
  sleep,
} from "../src/index.js";

describe("ManualClock", () => {
  it("starts at the manual epoch with equal readings", () => {
    const c = new ManualClock();
    expect(c.monoMs()).toBe(MANUAL_CLOCK_START_MS);
    expect(c.unixMs()).toBe(MANUAL_CLOCK_START_MS);
  });

  it("fires timers in time order, each at its own time", () => {
    const c = new ManualClock(0);
    const seen: Array<[string, number]> = [];
    c.setTimer(30, () => seen.push(["b", c.monoMs()]));
    c.setTimer(10, () => seen.push(["a", c.monoMs()]));
    const t = c.setTimer(20, () => seen.push(["x", c.monoMs()]));
    t.cancel();
    c.advance(25);
    expect(seen).toEqual([["a", 10]]);
    expect(c.monoMs()).toBe(25);
    c.advance(5);
    expect(seen).toEqual([
      ["a", 10],
      ["b", 30],
    ]);
    expect(c.pendingTimers()).toBe(0);
  });

  it("runs a sleep loop step by step with advanceAsync", async () => {
    const c = new ManualClock(0);
    let wakes = 0;
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(c, 100);
        wakes++;
      }
    })();
    await c.advanceAsync(250);
    expect(wakes).toBe(2);
    await c.advanceAsync(50);
    await loop;
    expect(wakes).toBe(3);
  });

  it("rejects a negative or NaN advance", () => {
    const c = new ManualClock(0);
    expect(() => c.advance(-1)).toThrow(RangeError);
    expect(() => c.advance(Number.NaN)).toThrow(/ms must be/);
  });

  it("stall moves time without firing timers; they fire late, at the next advance", () => {
    const c = new ManualClock(0);
    const fired: number[] = [];
    c.setTimer(10, () => fired.push(c.monoMs()));
    c.stall(40);
    expect(c.monoMs()).toBe(40);
    expect(fired).toEqual([]);
    c.advance(0);
    expect(fired).toEqual([40]);
    expect(() => c.stall(-1)).toThrow(RangeError);
  });
});

describe("sleep", () => {
  it("rejects at once when the signal is already aborted", async () => {
    const c = new ManualClock(0);
    const ac = new AbortController();
    ac.abort(new Error("gone"));
    await expect(sleep(c, 10, ac.signal)).rejects.toThrow("gone");
    expect(c.pendingTimers()).toBe(0);
  });

  it("rejects on abort during the wait and cancels its timer", async () => {
    const c = new ManualClock(0);
    const ac = new AbortController();
    const p = sleep(c, 1000, ac.signal);
    expect(c.pendingTimers()).toBe(1);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    expect(c.pendingTimers()).toBe(0);
  });

  it("a NEVER sleep sets no timer and ends only by abort", async () => {
    const c = new SystemClock();
    const ac = new AbortController();
    const p = sleep(c, NEVER, ac.signal);
    setTimeout(() => ac.abort(new Error("done")), 5);
    await expect(p).rejects.toThrow("done");
  });

  it("real clock: waits at least the time asked", async () => {
    const c = new SystemClock();
    const t0 = performance.now();
    await sleep(c, 15);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(14);
  });
});

describe("CoarseClock", () => {
  it("reads its base once per event-loop turn", async () => {
    const base = new ManualClock(1000);
    let reads = 0;
    const counting = {
      monoMs: () => {
        reads++;
        return base.monoMs();
      },
      unixMs: () => base.unixMs(),
      setTimer: base.setTimer.bind(base),
    };
    const c = new CoarseClock(counting);
    expect(c.monoMs()).toBe(1000);
    base.advance(5);
    expect(c.monoMs()).toBe(1000); // same turn: cached
    expect(c.unixMs()).toBe(1000);
    await Promise.resolve(); // a microtask is still the same turn
    expect(c.monoMs()).toBe(1000);
    expect(reads).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(c.monoMs()).toBe(1005); // next turn: fresh
    expect(reads).toBe(2);
  });

  it("reads its base past the cache for exactMonoMs (round trips are timed with it)", () => {
    const base = new ManualClock(1000);
    const c = new CoarseClock(base);
    expect(c.monoMs()).toBe(1000);
    base.advance(3);
    expect(c.monoMs()).toBe(1000);
    expect(c.exactMonoMs()).toBe(1003);
    expect(exactMonoMs(c)).toBe(1003);
    expect(exactMonoMs(base)).toBe(1003); // a clock without a cache: its monoMs
  });

  it("tracks real time across turns", async () => {
    const c = new CoarseClock();
    const a = c.monoMs();
    await new Promise((r) => setTimeout(r, 15));
    expect(c.monoMs() - a).toBeGreaterThanOrEqual(14);
  });
});

describe("SystemClock timers", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("chains a wait longer than setTimeout can hold and fires once, at its end", () => {
    vi.useFakeTimers();
    const fired: number[] = [];
    new SystemClock().setTimer(2 ** 31 + 5_000, () => fired.push(Date.now()));
    const start = Date.now();
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([start + 2 ** 31 + 5_000]);
    vi.advanceTimersByTime(2 ** 31);
    expect(fired).toHaveLength(1);
  });

  it("cancel stops a timer before and between its chained steps", () => {
    vi.useFakeTimers();
    const clock = new SystemClock();
    let fired = 0;
    clock.setTimer(10, () => fired++).cancel();
    const long = clock.setTimer(2 ** 31 + 10, () => fired++);
    vi.advanceTimersByTime(2 ** 31);
    long.cancel();
    long.cancel();
    vi.advanceTimersByTime(2 ** 32);
    expect(fired).toBe(0);
  });

  it("an unref'd timer does not keep the process alive; a plain one fires on time", async () => {
    const clock = new SystemClock();
    const t0 = performance.now();
    const at = await new Promise<number>((resolve) => clock.setTimer(5, () => resolve(performance.now())));
    expect(at - t0).toBeGreaterThanOrEqual(4);
    const unrefd = clock.setTimer(60_000, () => {}, { unref: true });
    unrefd.cancel();
  });
});
