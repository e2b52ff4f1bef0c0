import { describe, expect, it } from "vitest";
import { ManualClock, NEVER, RateLimiter, RateLimiterPolicy } from "../../src/index.js";
import { abortListeners, BAD_COSTS, CountingClock, flush, track } from "./support.js";

const HUGE = Number.MAX_SAFE_INTEGER;

function bucket(policy: RateLimiterPolicy, clock = new ManualClock(0)) {
  return { rl: new RateLimiter(policy, { clock }), clock };
}
const fast = () => bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(5));
const drain = (rl: RateLimiter) => {
  while (rl.tryAcquire() !== null);
};

describe("RateLimiter: reference bucket cases", () => {
  it("1-2: fast admits 5 tries, the 6th is null", () => {
    const { rl } = fast();
    for (let i = 0; i < 5; i++) expect(rl.tryAcquire()).not.toBeNull();
    expect(rl.tryAcquire()).toBeNull();
  });

  it("3 (real clock): perSecond(100) max 1 drained: acquire resolves >= 5 ms after a start taken before construction", async () => {
    const start = performance.now();
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(100).withMaxTokens(1));
    expect(rl.tryAcquire()).not.toBeNull();
    await rl.acquire();
    expect(performance.now() - start).toBeGreaterThanOrEqual(5);
  });

  it("3 (virtual clock): the drained acquire resolves exactly when the token is back (10 ms)", async () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(100).withMaxTokens(1));
    rl.tryAcquire();
    let at = -1;
    void rl.acquire().then(() => {
      at = clock.monoMs();
    });
    await clock.advanceAsync(9);
    expect(at).toBe(-1);
    await clock.advanceAsync(1);
    expect(at).toBe(10);
  });

  it("4: fast acquire returns at once and leaves 4 tokens", async () => {
    const { rl, clock } = fast();
    await rl.acquire();
    expect(rl.tokensAvailable()).toBe(4);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("5: perSecond(50) max 1 drained: the next try is null; after 40 ms a try succeeds", () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(50).withMaxTokens(1));
    drain(rl);
    expect(rl.tryAcquire()).toBeNull();
    clock.advance(40);
    expect(rl.tryAcquire()).not.toBeNull();
  });

  it("6: one token per NEVER period, drained: acquire is still pending after 50 ms, no throw, no timer", async () => {
    const { rl, clock } = bucket(new RateLimiterPolicy(1, NEVER).withMaxTokens(1));
    drain(rl);
    const ac = new AbortController();
    const p = track(rl.acquire({ signal: ac.signal }));
    await clock.advanceAsync(50);
    expect(p.settled).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    ac.abort(new Error("end"));
    await flush();
    expect((p.error as Error).message).toBe("end");
  });

  it("7: perSecond(10) max 2 burst 5: exactly 7 tries succeed", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(2).withBurst(5));
    let ok = 0;
    for (let i = 0; i < 20; i++) if (rl.tryAcquire()) ok++;
    expect(ok).toBe(7);
  });

  it("11: max 10: N(3) leaves 7; N(7) leaves 0; N(1) is null", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10));
    expect(rl.tryAcquireN(3)).not.toBeNull();
    expect(rl.tokensAvailable()).toBe(7);
    expect(rl.tryAcquireN(7)).not.toBeNull();
    expect(rl.tokensAvailable()).toBe(0);
    expect(rl.tryAcquireN(1)).toBeNull();
  });

  it("12: max 2: 100 x N(0) succeed and 2 tokens remain", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(2));
    for (let i = 0; i < 100; i++) expect(rl.tryAcquireN(0)).not.toBeNull();
    expect(rl.tokensAvailable()).toBe(2);
  });

  it("12b: a cost of 0 reads no clock", () => {
    const clock = new CountingClock(new ManualClock(0));
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(2), { clock });
    const before = clock.reads;
    rl.tryAcquireN(0);
    rl.tryDebit(0);
    expect(clock.reads).toBe(before);
  });

  it("13: max 5: N(6) is null and drains nothing", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(5));
    expect(rl.tryAcquireN(6)).toBeNull();
    expect(rl.tokensAvailable()).toBe(5);
  });

  it("14: perSecond(100) max 5: after N(5), acquireN(3) takes >= 15 ms (30 ms of refill)", async () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(100).withMaxTokens(5));
    expect(rl.tryAcquireN(5)).not.toBeNull();
    let at = -1;
    void rl.acquireN(3).then(() => {
      at = clock.monoMs();
    });
    await clock.advanceAsync(29);
    expect(at).toBe(-1);
    await clock.advanceAsync(5);
    expect(at).toBeGreaterThanOrEqual(30);
    expect(at).toBeLessThanOrEqual(31);
    expect(rl.tokensAvailable()).toBe(0);
  });

  it("15: max 10: reserve 4 leaves 6; release restores 10", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10));
    const r = rl.tryReserveN(4);
    expect(r).not.toBeNull();
    expect(rl.tokensAvailable()).toBe(6);
    r!.release();
    expect(rl.tokensAvailable()).toBe(10);
  });

  it("16: reserve 4 + commit: 6 remain after release", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10));
    const r = rl.tryReserveN(4)!;
    r.commit();
    r.release();
    expect(rl.tokensAvailable()).toBe(6);
  });

  it("17: perSecond(1e6) max 5: reserve 5 -> 0; after 20 ms 5; releasing leaves 5 (capped)", () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(1_000_000).withMaxTokens(5));
    const r = rl.tryReserveN(5)!;
    expect(rl.tokensAvailable()).toBe(0);
    clock.advance(20);
    expect(rl.tokensAvailable()).toBe(5);
    r.release();
    expect(rl.tokensAvailable()).toBe(5);
  });

  it("18: new(5, 1 h) max 5: N(5) ok, then N(1) null", () => {
    const { rl } = bucket(new RateLimiterPolicy(5, 3_600_000));
    expect(rl.tryAcquireN(5)).not.toBeNull();
    expect(rl.tryAcquireN(1)).toBeNull();
  });

  it("19: perSecond(1e6) max 5: timeUntil(6) is NEVER", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(1_000_000).withMaxTokens(5));
    expect(rl.timeUntil(6)).toBe(NEVER);
  });

  it("20: perSecond(1e6) max 5: acquireN(6) is pending after 50 ms without spinning", async () => {
    const manual = new ManualClock(0);
    const clock = new CountingClock(manual);
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(1_000_000).withMaxTokens(5), { clock });
    const ac = new AbortController();
    const p = track(rl.acquireN(6, { signal: ac.signal }));
    await flush();
    const reads = clock.reads;
    await manual.advanceAsync(50);
    expect(p.settled).toBe(false);
    expect(clock.reads).toBe(reads); // no polling of the clock while it waits
    expect(clock.timers).toBe(0); // a NEVER wait sets no timer
    ac.abort();
    await flush();
    expect(p.settled).toBe(true);
  });

  it("21: perSecond(5): N(huge) is null and timeUntil(huge) is NEVER", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(5));
    expect(rl.tryAcquireN(HUGE)).toBeNull();
    expect(rl.timeUntil(HUGE)).toBe(NEVER);
    expect(rl.tokensAvailable()).toBe(5);
  });

  it("22: max 10 after N(4): snapshot limit 10, used 4, availableIn 0, resetsAt null", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10));
    rl.tryAcquireN(4);
    expect(rl.snapshot()).toEqual({ used: 4, limit: 10, availableInMs: 0, resetsAt: null });
  });

  it("23: a drained new(5, 1 h) bucket shared by two users: the other's try is null", () => {
    const { rl } = bucket(new RateLimiterPolicy(5, 3_600_000));
    const userA = { limiter: rl };
    const userB = { limiter: rl };
    expect(userA.limiter.tryAcquireN(5)).not.toBeNull();
    expect(userB.limiter.tryAcquire()).toBeNull();
  });

  it("24: new(10, 1 day) max 10: of 40 concurrent tries exactly 10 succeed", async () => {
    const rl = new RateLimiter(new RateLimiterPolicy(10, 86_400_000));
    const results = await Promise.all(
      Array.from({ length: 40 }, async () => {
        await Promise.resolve();
        return rl.tryAcquire();
      }),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(10);
  });
});

describe("RateLimiter: refill, timeUntil, snapshot", () => {
  it("refills lazily, caps at capacity and loses time spent full", () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(5));
    clock.advance(10_000); // full the whole time: nothing accumulates beyond 5
    expect(rl.tryAcquireN(5)).not.toBeNull();
    expect(rl.tryAcquire()).toBeNull();
    clock.advance(250);
    expect(rl.tokensAvailable()).toBe(2);
  });

  it("timeUntil: 0 for cost 0 and when it fits, else deficit / rate", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(5));
    expect(rl.timeUntil(0)).toBe(0);
    expect(rl.timeUntil(5)).toBe(0);
    rl.tryAcquireN(5);
    expect(rl.timeUntil(0)).toBe(0);
    expect(rl.timeUntil(2)).toBeCloseTo(200);
  });

  it("a never-refilling bucket reports NEVER once drained", () => {
    const { rl } = bucket(new RateLimiterPolicy(2, NEVER));
    rl.tryAcquireN(2);
    expect(rl.timeUntil(1)).toBe(NEVER);
    expect(rl.snapshot()).toEqual({ used: 2, limit: 2, availableInMs: NEVER, resetsAt: null });
  });

  it("the clock stepping back adds nothing", () => {
    let now = 1000;
    const clock = { monoMs: () => now, unixMs: () => now, setTimer: () => ({ cancel() {} }) };
    const rl = new RateLimiter(RateLimiterPolicy.perSecond(10).withMaxTokens(2), { clock });
    rl.tryAcquireN(2);
    now = 500;
    expect(rl.tokensAvailable()).toBe(0);
    now = 1100; // 100 ms after the last refill point
    expect(rl.tokensAvailable()).toBe(1);
  });

  it("acquire waiters reserve nothing: two waiters on one token, one wins, the other waits on", async () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(1));
    rl.tryAcquire();
    const a = track(rl.acquire());
    const b = track(rl.acquire());
    await clock.advanceAsync(100);
    expect([a.settled, b.settled].filter(Boolean)).toHaveLength(1);
    await clock.advanceAsync(100);
    expect(a.settled && b.settled).toBe(true);
    expect(rl.tokensAvailable()).toBe(0);
  });
});

describe("RateLimiter: Meter", () => {
  it("tryDebit returns epoch 0 or null; credit ignores the epoch and caps at capacity", () => {
    const { rl } = bucket(RateLimiterPolicy.perSecond(5));
    expect(rl.tryDebit(3)).toBe(0);
    expect(rl.tryDebit(3)).toBeNull();
    rl.credit(2, 99);
    expect(rl.tokensAvailable()).toBe(4);
    rl.credit(100, 0);
    expect(rl.tokensAvailable()).toBe(5);
    rl.credit(0, 0);
    expect(rl.tokensAvailable()).toBe(5);
  });
});

describe("RateLimiter: AbortSignal", () => {
  it("an already aborted signal rejects with its reason and debits nothing", async () => {
    const { rl, clock } = fast();
    const ac = new AbortController();
    ac.abort(new Error("before"));
    await expect(rl.acquire({ signal: ac.signal })).rejects.toThrow("before");
    await expect(rl.acquireN(0, { signal: ac.signal })).rejects.toThrow("before");
    expect(rl.tokensAvailable()).toBe(5);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("abort during a wait rejects with the reason and removes the timer and the listener", async () => {
    const { rl, clock } = fast();
    drain(rl);
    const ac = new AbortController();
    const p = rl.acquireN(3, { signal: ac.signal });
    await flush();
    expect(clock.pendingTimers()).toBe(1);
    expect(abortListeners(ac.signal)).toBe(1);
    const reason = new Error("during");
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
    expect(abortListeners(ac.signal)).toBe(0);
    clock.advance(1000);
    expect(rl.tokensAvailable()).toBe(5); // nothing was debited
  });

  it("a wait that completes leaves no listener behind, even after several wake-ups", async () => {
    const { rl, clock } = bucket(RateLimiterPolicy.perSecond(10).withMaxTokens(1));
    rl.tryAcquire();
    const ac = new AbortController();
    const rival = track(rl.acquire()); // takes the first token: ours must loop
    const mine = track(rl.acquire({ signal: ac.signal }));
    await clock.advanceAsync(250);
    expect(rival.settled && mine.settled).toBe(true);
    expect(mine.error).toBeUndefined();
    expect(abortListeners(ac.signal)).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("abort ends a NEVER wait", async () => {
    const { rl, clock } = fast();
    const ac = new AbortController();
    const p = rl.acquireN(6, { signal: ac.signal });
    await flush();
    expect(clock.pendingTimers()).toBe(0);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    expect(abortListeners(ac.signal)).toBe(0);
  });
});

describe("RateLimiter: bad costs", () => {
  it.each(BAD_COSTS)("cost %s is a RangeError naming cost, and changes nothing", async (cost) => {
    const { rl } = fast();
    expect(() => rl.tryAcquireN(cost)).toThrow(RangeError);
    expect(() => rl.tryAcquireN(cost)).toThrow(/cost/);
    expect(() => rl.tryReserveN(cost)).toThrow(RangeError);
    expect(() => rl.timeUntil(cost)).toThrow(RangeError);
    expect(() => rl.tryDebit(cost)).toThrow(RangeError);
    expect(() => rl.credit(cost, 0)).toThrow(RangeError);
    await expect(rl.acquireN(cost)).rejects.toThrow(RangeError);
    expect(rl.tokensAvailable()).toBe(5);
  });

  it("a negative credit cannot drain and a negative debit cannot add", () => {
    const { rl } = fast();
    rl.tryAcquireN(5);
    expect(() => rl.tryAcquireN(-3)).toThrow(/cost/);
    expect(rl.tokensAvailable()).toBe(0);
  });
});
