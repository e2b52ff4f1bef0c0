import { describe, expect, it } from "vitest";
import {
  ManualClock,
  MultiRateLimiter,
  NEVER,
  RateLimitedError,
  RateLimiter,
  RateLimiterPolicy,
  WindowedRateLimiter,
  WindowPolicy,
} from "../../src/index.js";
import { abortListeners, BAD_COSTS, flush, track } from "./support.js";

function setup() {
  const clock = new ManualClock(0);
  const rl = (n: number) => new RateLimiter(RateLimiterPolicy.perSecond(n), { clock });
  const win = (n: number, ms = 60_000) => new WindowedRateLimiter(new WindowPolicy(n, ms), { clock });
  const multi = () => new MultiRateLimiter({ clock });
  return { clock, rl, win, multi };
}

function rejected(r: ReturnType<MultiRateLimiter["tryAcquire"]>) {
  if (r.ok) throw new Error("expected a rejection");
  return r;
}

describe("MultiRateLimiter: reference multi-tier cases", () => {
  it("2: a=rl(5), b=win(5): ok", () => {
    const { rl, win, multi } = setup();
    expect(multi().withTier("a", rl(5), 1).withTier("b", win(5), 1).tryAcquire().ok).toBe(true);
  });

  it("3: a=rl(100), b=win(1): 1st ok; 2nd fails with tier b, retryAfter > 0, and a is refunded", () => {
    const { rl, win, multi } = setup();
    const a = rl(100);
    const m = multi().withTier("a", a, 1).withTier("b", win(1), 1);
    expect(m.tryAcquire().ok).toBe(true);
    const r = rejected(m.tryAcquire());
    expect(r.tier).toBe("b");
    expect(r.retryAfterMs).toBeGreaterThan(0);
    expect(r.retryAfterMs).toBe(60_000);
    expect(a.tokensAvailable()).toBe(99);
  });

  it("4: a=win(100), b=win(1): after one ok, 10 failures leave a.used unchanged", () => {
    const { win, multi } = setup();
    const a = win(100);
    const m = multi().withTier("a", a, 1).withTier("b", win(1), 1);
    expect(m.tryAcquire().ok).toBe(true);
    for (let i = 0; i < 10; i++) expect(m.tryAcquire().ok).toBe(false);
    expect(a.used()).toBe(1);
  });

  it("5: requests=win(2) cost 1, tokens=win(1000) cost 600: the 2nd call fails with tier tokens", () => {
    const { win, multi } = setup();
    const requests = win(2);
    const m = multi().withTier("requests", requests, 1).withTier("tokens", win(1000), 600);
    expect(m.tryAcquire().ok).toBe(true);
    expect(rejected(m.tryAcquire()).tier).toBe("tokens");
    expect(requests.used()).toBe(1);
  });

  it("6: tryAcquireFor counts only the named tiers", () => {
    const { win, multi } = setup();
    const shared = win(10);
    const modelX = win(1);
    const m = multi().withTier("shared", shared, 1).withTier("model_x", modelX, 1);
    expect(m.tryAcquireFor(["shared", "model_x"]).ok).toBe(true);
    expect(m.tryAcquireFor(["shared"]).ok).toBe(true);
    expect(rejected(m.tryAcquireFor(["shared", "model_x"])).tier).toBe("model_x");
    expect(shared.used()).toBe(2);
    expect(modelX.used()).toBe(1);
  });

  it("7: a cost-0 tier is off: off=win(1) cost 0, on=win(2): two ok, then a failure", () => {
    const { win, multi } = setup();
    const off = win(1);
    const m = multi().withTier("off", off, 0).withTier("on", win(2), 1);
    expect(m.tryAcquire().ok).toBe(true);
    expect(m.tryAcquire().ok).toBe(true);
    expect(rejected(m.tryAcquire()).tier).toBe("on");
    expect(off.used()).toBe(0);
  });

  it("8: a=rl(1000), b=bucket(100/s max 1) drained: acquire takes >= 5 ms", async () => {
    const { clock, rl, multi } = setup();
    const b = new RateLimiter(RateLimiterPolicy.perSecond(100).withMaxTokens(1), { clock });
    b.tryAcquire();
    const a = rl(1000);
    const m = multi().withTier("a", a, 1).withTier("b", b, 1);
    let at = -1;
    void m.acquire().then(() => {
      at = clock.monoMs();
    });
    await clock.advanceAsync(5);
    expect(at).toBe(-1);
    await clock.advanceAsync(20);
    expect(at).toBeGreaterThanOrEqual(10);
    expect(at).toBeLessThanOrEqual(11);
  });

  it("8 (real clock): the same acquire resolves after >= 5 ms", async () => {
    const b = new RateLimiter(RateLimiterPolicy.perSecond(100).withMaxTokens(1));
    b.tryAcquire();
    const a = new RateLimiter(RateLimiterPolicy.perSecond(1000));
    const m = new MultiRateLimiter().withTier("a", a, 1).withTier("b", b, 1);
    const t0 = performance.now();
    await m.acquire();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(5);
  });

  it("9: a=win(2), b=win(2): after releasing the permit, used 1 on both", () => {
    const { win, multi } = setup();
    const a = win(2);
    const b = win(2);
    const r = multi().withTier("a", a, 1).withTier("b", b, 1).tryAcquire();
    if (!r.ok) throw new Error("expected ok");
    r.permit.release();
    expect([a.used(), b.used()]).toEqual([1, 1]);
  });

  it("10: a=rl(1000), scarce=win(5): 24 concurrent tries -> exactly 5 ok, scarce.used 5", async () => {
    const { rl, win, multi } = setup();
    const a = rl(1000);
    const scarce = win(5);
    const m = multi().withTier("a", a, 1).withTier("scarce", scarce, 1);
    const results = await Promise.all(
      Array.from({ length: 24 }, async () => {
        await Promise.resolve();
        return m.tryAcquire();
      }),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(scarce.used()).toBe(5);
    expect(a.tokensAvailable()).toBe(995);
  });

  it("11: an empty multi always admits", async () => {
    const m = setup().multi();
    expect(m.tryAcquire().ok).toBe(true);
    await expect(m.acquire()).resolves.toBeDefined();
  });

  it("12: a=win(1) exhausted: tryAcquireFor(['nonexistent']) ok", () => {
    const { win, multi } = setup();
    const a = win(1);
    const m = multi().withTier("a", a, 1);
    m.tryAcquire();
    expect(m.tryAcquireFor(["nonexistent"]).ok).toBe(true);
    expect(a.used()).toBe(1);
  });

  it("13: first=win(1), second=win(100): 5 failures name first and leave second untouched", () => {
    const { win, multi } = setup();
    const second = win(100);
    const m = multi().withTier("first", win(1), 1).withTier("second", second, 1);
    expect(m.tryAcquire().ok).toBe(true);
    for (let i = 0; i < 5; i++) expect(rejected(m.tryAcquire()).tier).toBe("first");
    expect(second.used()).toBe(1);
  });

  it("14: one meter win(10) under tiers a and b: one success charges it twice", () => {
    const { win, multi } = setup();
    const w = win(10);
    expect(multi().withTier("a", w, 1).withTier("b", w, 1).tryAcquire().ok).toBe(true);
    expect(w.used()).toBe(2);
  });

  it("14b: the same meter under two tiers is refunded when the second charge does not fit", () => {
    const { win, multi } = setup();
    const w = win(3);
    const m = multi().withTier("a", w, 2).withTier("b", w, 2);
    expect(rejected(m.tryAcquire()).tier).toBe("b");
    expect(w.used()).toBe(0);
  });

  it("15: tier w=(1, 100 ms) drained: acquire waits >= 50 ms (until the reset)", async () => {
    const { clock, win, multi } = setup();
    const w = win(1, 100);
    const m = multi().withTier("w", w, 1);
    m.tryAcquire();
    let at = -1;
    void m.acquire().then(() => {
      at = clock.monoMs();
    });
    await clock.advanceAsync(99);
    expect(at).toBe(-1);
    await clock.advanceAsync(1);
    expect(at).toBe(100);
    expect(w.used()).toBe(1);
  });

  it("16: win(5) with cost 10: fails with retryAfter NEVER", () => {
    const { win, multi } = setup();
    const r = rejected(multi().withTier("big", win(5), 10).tryAcquire());
    expect(r.tier).toBe("big");
    expect(r.retryAfterMs).toBe(NEVER);
  });
});

describe("MultiRateLimiter: details", () => {
  it("retryAfter is at least 1 ms even when the tier is nearly ready", () => {
    const { rl, multi } = setup();
    const fast = rl(1_000_000); // 1000 tokens per ms: a deficit of one token is 0.001 ms
    fast.tryAcquireN(1_000_000);
    const r = rejected(multi().withTier("fast", fast, 1).tryAcquire());
    expect(r.retryAfterMs).toBe(1);
  });

  it("withTier returns a new limiter; the original keeps its tiers", () => {
    const { win, multi } = setup();
    const base = multi().withTier("a", win(1), 1);
    const more = base.withTier("b", win(1), 1);
    expect(base.tiers.map((t) => t.name)).toEqual(["a"]);
    expect(more.tiers.map((t) => t.name)).toEqual(["a", "b"]);
  });

  it("a rejection converts to a RateLimitedError", () => {
    const { win, multi } = setup();
    const m = multi().withTier("b", win(1), 1);
    m.tryAcquire();
    const err = RateLimitedError.from(rejected(m.tryAcquire()));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.tier).toBe("b");
    expect(err.retryAfterMs).toBe(60_000);
    expect(err.message).toBe("rate limited by tier `b`: retry after 60000 ms");
  });

  it("an acquire that waits holds no debit on the other tiers meanwhile", async () => {
    const { clock, win, multi } = setup();
    const a = win(10);
    const b = win(1, 100);
    const m = multi().withTier("a", a, 1).withTier("b", b, 1);
    m.tryAcquire();
    const p = track(m.acquire());
    await clock.advanceAsync(50);
    expect(p.settled).toBe(false);
    expect(a.used()).toBe(1);
    await clock.advanceAsync(50);
    expect(p.settled).toBe(true);
    expect(a.used()).toBe(2);
  });

  it.each(BAD_COSTS)("a tier cost of %s is a RangeError naming cost", (cost) => {
    const { win, multi } = setup();
    expect(() => multi().withTier("a", win(1), cost)).toThrow(RangeError);
    expect(() => multi().withTier("a", win(1), cost)).toThrow(/cost/);
  });
});

describe("MultiRateLimiter: AbortSignal", () => {
  it("an already aborted signal rejects and charges no tier", async () => {
    const { clock, win, multi } = setup();
    const a = win(5);
    const ac = new AbortController();
    ac.abort(new Error("before"));
    await expect(multi().withTier("a", a, 1).acquire({ signal: ac.signal })).rejects.toThrow("before");
    expect(a.used()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("abort during a wait rejects with the reason and cleans up the timer and listener", async () => {
    const { clock, win, multi } = setup();
    const a = win(10);
    const b = win(1, 1000);
    const m = multi().withTier("a", a, 1).withTier("b", b, 1);
    m.tryAcquire();
    const ac = new AbortController();
    const p = m.acquireFor(["a", "b"], { signal: ac.signal });
    await flush();
    expect(clock.pendingTimers()).toBe(1);
    const reason = new Error("during");
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
    expect(abortListeners(ac.signal)).toBe(0);
    expect([a.used(), b.used()]).toEqual([1, 1]);
  });

  it("a tier that can never admit waits with no timer until aborted", async () => {
    const { clock, win, multi } = setup();
    const m = multi().withTier("big", win(5), 10);
    const ac = new AbortController();
    const p = track(m.acquire({ signal: ac.signal }));
    await clock.advanceAsync(10_000);
    expect(p.settled).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    ac.abort();
    await flush();
    expect(p.error).toMatchObject({ name: "AbortError" });
  });
});
