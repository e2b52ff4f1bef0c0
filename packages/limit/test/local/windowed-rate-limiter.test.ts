import { describe, expect, it } from "vitest";
import { ManualClock, NEVER, WindowedRateLimiter, WindowPolicy } from "../../src/index.js";
import { abortListeners, BAD_COSTS, CountingClock, flush, track } from "./support.js";

const HUGE = Number.MAX_SAFE_INTEGER;

function win(limit: number, windowMs: number, clock = new ManualClock(0)) {
  return { w: new WindowedRateLimiter(new WindowPolicy(limit, windowMs), { clock }), clock };
}

describe("WindowedRateLimiter: reference window cases", () => {
  it("1: (3, 60 s): 3 ok, the 4th null, used 3, remaining 0", () => {
    const { w } = win(3, 60_000);
    for (let i = 0; i < 3; i++) expect(w.tryAcquire()).not.toBeNull();
    expect(w.tryAcquire()).toBeNull();
    expect(w.used()).toBe(3);
    expect(w.remaining()).toBe(0);
  });

  it("2: (1000, 60 s): N(1500) null; N(600) ok; N(600) null; N(400) ok; used 1000", () => {
    const { w } = win(1000, 60_000);
    expect(w.tryAcquireN(1500)).toBeNull();
    expect(w.tryAcquireN(600)).not.toBeNull();
    expect(w.tryAcquireN(600)).toBeNull();
    expect(w.tryAcquireN(400)).not.toBeNull();
    expect(w.used()).toBe(1000);
  });

  it("3: (2, 50 ms): 2 ok, 3rd null; after 70 ms one ok and used 1", () => {
    const { w, clock } = win(2, 50);
    expect(w.tryAcquire()).not.toBeNull();
    expect(w.tryAcquire()).not.toBeNull();
    expect(w.tryAcquire()).toBeNull();
    clock.advance(70);
    expect(w.tryAcquire()).not.toBeNull();
    expect(w.used()).toBe(1);
  });

  it("4: (1, 10 s) full: 1 s < timeUntil(1) <= 10 s", () => {
    const { w, clock } = win(1, 10_000);
    w.tryAcquire();
    clock.advance(3000);
    const t = w.timeUntil(1);
    expect(t).toBeGreaterThan(1000);
    expect(t).toBeLessThanOrEqual(10_000);
    expect(t).toBe(7000);
  });

  it("5: (5, 50 ms): a reservation from an old window does not refund the new one", () => {
    const { w, clock } = win(5, 50);
    const old = w.tryReserveN(3)!;
    clock.advance(70);
    expect(w.tryAcquireN(2)).not.toBeNull();
    old.release();
    expect(w.used()).toBe(2);
    expect(w.tryAcquireN(3)).not.toBeNull();
    expect(w.tryAcquireN(1)).toBeNull();
  });

  it("6: (5, 60 s): timeUntil(6) is NEVER", () => {
    expect(win(5, 60_000).w.timeUntil(6)).toBe(NEVER);
  });

  it("10: (5, 60 s): N(5) ok, N(1) null", () => {
    const { w } = win(5, 60_000);
    expect(w.tryAcquireN(5)).not.toBeNull();
    expect(w.tryAcquireN(1)).toBeNull();
  });

  it("11: (1, 60 s): 100 x N(0) ok, used 0", () => {
    const { w } = win(1, 60_000);
    for (let i = 0; i < 100; i++) expect(w.tryAcquireN(0)).not.toBeNull();
    expect(w.used()).toBe(0);
  });

  it("11b: N(0) on a full window still succeeds", () => {
    const { w } = win(1, 60_000);
    w.tryAcquire();
    expect(w.tryAcquireN(0)).not.toBeNull();
    expect(w.used()).toBe(1);
  });

  it("12 (virtual clock): (1, 100 ms) drained: acquire waits for the reset (>= 50 ms)", async () => {
    const { w, clock } = win(1, 100);
    w.tryAcquire();
    clock.advance(20);
    let at = -1;
    void w.acquire().then(() => {
      at = clock.monoMs();
    });
    await clock.advanceAsync(79);
    expect(at).toBe(-1);
    await clock.advanceAsync(1);
    expect(at).toBe(100);
    expect(w.used()).toBe(1);
  });

  it("12 (real clock): (1, 100 ms) drained: acquire takes >= 50 ms", async () => {
    const w = new WindowedRateLimiter(new WindowPolicy(1, 100));
    w.tryAcquire();
    const t0 = performance.now();
    await w.acquire();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(50);
  });

  it("13: reserve 3 -> used 3; release in the same window -> 0", () => {
    const { w } = win(5, 60_000);
    const r = w.tryReserveN(3)!;
    expect(w.used()).toBe(3);
    r.release();
    expect(w.used()).toBe(0);
    r.release();
    expect(w.used()).toBe(0);
  });

  it("14: reserve 3 + commit: used 3", () => {
    const { w } = win(5, 60_000);
    const r = w.tryReserveN(3)!;
    r.commit();
    r.release();
    expect(w.used()).toBe(3);
  });

  it("15: (10, 60 s) after N(4): snapshot limit 10, used 4, availableIn 0, resetsAt set", () => {
    const { w } = win(10, 60_000);
    w.tryAcquireN(4);
    expect(w.snapshot()).toEqual({ used: 4, limit: 10, availableInMs: 0, resetsAt: 60_000 });
  });

  it("16: (1, 10 s) full: snapshot used 1, availableIn > 1 s", () => {
    const { w } = win(1, 10_000);
    w.tryAcquire();
    const s = w.snapshot();
    expect(s.used).toBe(1);
    expect(s.availableInMs).toBeGreaterThan(1000);
  });

  it("17: shared (2, 60 s) drained: the other user's try is null", () => {
    const { w } = win(2, 60_000);
    const a = { limiter: w };
    const b = { limiter: w };
    a.limiter.tryAcquireN(2);
    expect(b.limiter.tryAcquire()).toBeNull();
  });

  it("18: (10, 60 s): of 40 concurrent tries exactly 10 succeed, used 10", async () => {
    const w = new WindowedRateLimiter(new WindowPolicy(10, 60_000));
    const results = await Promise.all(
      Array.from({ length: 40 }, async () => {
        await Promise.resolve();
        return w.tryAcquire();
      }),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(10);
    expect(w.used()).toBe(10);
  });

  it("19: huge cost: null, timeUntil NEVER", () => {
    const { w } = win(5, 60_000);
    expect(w.tryAcquireN(HUGE)).toBeNull();
    expect(w.timeUntil(HUGE)).toBe(NEVER);
    expect(w.used()).toBe(0);
  });
});

describe("WindowedRateLimiter: rollover and reset time", () => {
  it("reads roll the window too, and the new window starts at that moment", () => {
    const { w, clock } = win(3, 100);
    w.tryAcquireN(3);
    expect(w.resetsAt()).toBe(100);
    clock.advance(130);
    expect(w.remaining()).toBe(3); // a read rolls
    expect(w.resetsAt()).toBe(230); // the window restarted at 130, not at 100
    w.tryAcquire();
    clock.advance(99);
    expect(w.used()).toBe(1);
    clock.advance(1);
    expect(w.used()).toBe(0);
  });

  it("timeUntil: 0 when it fits or for cost 0, else until the reset", () => {
    const { w, clock } = win(3, 100);
    expect(w.timeUntil(0)).toBe(0);
    w.tryAcquireN(2);
    expect(w.timeUntil(1)).toBe(0);
    clock.advance(40);
    expect(w.timeUntil(2)).toBe(60);
  });

  it("a NEVER window is a one-off quota: no reset time, NEVER once full", () => {
    const { w, clock } = win(2, NEVER);
    w.tryAcquireN(2);
    clock.advance(1e12);
    expect(w.used()).toBe(2);
    expect(w.resetsAt()).toBeNull();
    expect(w.timeUntil(1)).toBe(NEVER);
    expect(w.snapshot()).toEqual({ used: 2, limit: 2, availableInMs: NEVER, resetsAt: null });
  });
});

describe("WindowedRateLimiter: Meter", () => {
  it("tryDebit returns the window generation; a stale credit is dropped", () => {
    const { w, clock } = win(5, 100);
    expect(w.tryDebit(2)).toBe(0);
    expect(w.tryDebit(0)).toBe(0);
    clock.advance(100);
    expect(w.tryDebit(1)).toBe(1);
    expect(w.tryDebit(0)).toBe(1);
    w.credit(1, 0); // from the first window: ignored
    expect(w.used()).toBe(1);
    w.credit(5, 1); // floors at 0
    expect(w.used()).toBe(0);
  });
});

describe("WindowedRateLimiter: AbortSignal", () => {
  it("an already aborted signal rejects and debits nothing", async () => {
    const { w, clock } = win(5, 1000);
    const ac = new AbortController();
    ac.abort(new Error("before"));
    await expect(w.acquire({ signal: ac.signal })).rejects.toThrow("before");
    expect(w.used()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("abort during a wait rejects with the reason and cleans up the timer and listener", async () => {
    const { w, clock } = win(1, 1000);
    w.tryAcquire();
    const ac = new AbortController();
    const p = w.acquire({ signal: ac.signal });
    await flush();
    expect(clock.pendingTimers()).toBe(1);
    const reason = new Error("during");
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
    expect(abortListeners(ac.signal)).toBe(0);
    clock.advance(1000);
    expect(w.used()).toBe(0);
  });

  it("a cost above the limit waits with no timer and no clock polling, until aborted", async () => {
    const manual = new ManualClock(0);
    const clock = new CountingClock(manual);
    const w = new WindowedRateLimiter(new WindowPolicy(5, 100), { clock });
    const ac = new AbortController();
    const p = track(w.acquireN(6, { signal: ac.signal }));
    await flush();
    const reads = clock.reads;
    await manual.advanceAsync(1000);
    expect(p.settled).toBe(false);
    expect(clock.timers).toBe(0);
    expect(clock.reads).toBe(reads);
    ac.abort();
    await flush();
    expect(p.error).toMatchObject({ name: "AbortError" });
  });

  it("waiters that miss the new window wait for the next one", async () => {
    const { w, clock } = win(1, 100);
    w.tryAcquire();
    const a = track(w.acquire());
    const b = track(w.acquire());
    await clock.advanceAsync(100);
    expect([a.settled, b.settled].filter(Boolean)).toHaveLength(1);
    await clock.advanceAsync(100);
    expect(a.settled && b.settled).toBe(true);
  });
});

describe("WindowedRateLimiter: bad costs", () => {
  it.each(BAD_COSTS)("cost %s is a RangeError naming cost", async (cost) => {
    const { w } = win(5, 1000);
    expect(() => w.tryAcquireN(cost)).toThrow(/cost/);
    expect(() => w.tryReserveN(cost)).toThrow(RangeError);
    expect(() => w.timeUntil(cost)).toThrow(RangeError);
    expect(() => w.tryDebit(cost)).toThrow(RangeError);
    expect(() => w.credit(cost, 0)).toThrow(RangeError);
    await expect(w.acquireN(cost)).rejects.toThrow(RangeError);
    expect(w.used()).toBe(0);
  });
});
