import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import type { Decision } from "../../src/cluster/decision.js";
import { InvalidCostError, InvalidOptionError, LimiterClosedError } from "../../src/cluster/errors.js";
import { Limiter } from "../../src/cluster/limiter.js";
import {
  CostExceedsLimitError,
  type PacedLimiter,
  Pacer,
  WaitTimeoutError,
} from "../../src/cluster/pacer.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const FIXED_10 = { algorithm: "fixed_window", requestsPerSecond: 10 } as const;

/** A store-less limiter (every key local) and a pacer on one manual clock, at the start of a second. */
function localPacer(options: ConstructorParameters<typeof Pacer>[1] = {}) {
  const clock = new ManualClock();
  clock.set(Math.ceil(clock.unixMs() / 1000) * 1000 + 1);
  const limiter = new Limiter({ podId: "p" }, undefined, clock);
  limiter.setPolicy("api", FIXED_10);
  return { clock, limiter, pacer: new Pacer(limiter, options, clock) };
}

describe("Pacer", () => {
  it("admits waiters in arrival order as the limit frees capacity, never more than the limit per window", async () => {
    const { clock, pacer } = localPacer();
    const done: Array<{ i: number; at: number }> = [];
    const start = clock.monoMs();
    const waits = Array.from({ length: 25 }, (_, i) =>
      pacer.wait("api").then(() => done.push({ i, at: Math.floor((clock.monoMs() - start) / 1000) })),
    );
    for (let s = 0; s < 3; s++) await clock.advanceAsync(1000);
    await Promise.all(waits);
    expect(done.map((d) => d.i)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const perWindow = [0, 1, 2].map((w) => done.filter((d) => d.at === w).length);
    expect(perWindow).toEqual([10, 10, 5]);
    expect(pacer.waiting()).toBe(0);
  });

  it("does not let small requests overtake a big one at the head", async () => {
    const { clock, pacer } = localPacer();
    await pacer.wait("api", { cost: 6 });
    const order: string[] = [];
    const big = pacer.wait("api", { cost: 8 }).then(() => order.push("big"));
    const small = pacer.wait("api", { cost: 1 }).then(() => order.push("small"));
    await clock.advanceAsync(100);
    expect(order).toEqual([]); // 4 left: the small one would fit, but waits behind the big one
    await clock.advanceAsync(1000);
    await Promise.all([big, small]);
    expect(order).toEqual(["big", "small"]);
  });

  it("rejects with WaitTimeoutError after maxWaitMs and leaves nothing behind", async () => {
    const { clock, pacer } = localPacer();
    const idleTimers = clock.pendingTimers();
    for (let i = 0; i < 10; i++) await pacer.wait("api");
    const late = pacer.wait("api", { maxWaitMs: 200 });
    const outcome = late.then(
      () => "admitted",
      (e: unknown) => e,
    );
    await clock.advanceAsync(250);
    const err = await outcome;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).maxWaitMs).toBe(200);
    expect(pacer.waiting()).toBe(0);
    expect(clock.pendingTimers()).toBe(idleTimers);
  });

  it("an aborted wait rejects with the signal's reason and the next waiter takes its place", async () => {
    const { clock, pacer } = localPacer();
    for (let i = 0; i < 10; i++) await pacer.wait("api");
    const controller = new AbortController();
    const aborted = pacer.wait("api", { signal: controller.signal }).catch((e: unknown) => e);
    const next = pacer.wait("api");
    controller.abort(new Error("client went away"));
    expect(((await aborted) as Error).message).toBe("client went away");
    expect(pacer.waiting("api")).toBe(1);
    await clock.advanceAsync(1000);
    await next;
    expect(pacer.waiting()).toBe(0);
    await expect(pacer.wait("api", { signal: AbortSignal.abort("already") })).rejects.toBe("already");
  });

  it("rejects a cost the limit can never admit, a bad cost and bad options", async () => {
    const { pacer, limiter } = localPacer();
    await expect(pacer.wait("api", { cost: 11 })).rejects.toBeInstanceOf(CostExceedsLimitError);
    await expect(pacer.wait("api", { cost: -1 })).rejects.toBeInstanceOf(InvalidCostError);
    await expect(pacer.wait("api", { maxWaitMs: Number.NaN })).rejects.toBeInstanceOf(InvalidOptionError);
    expect(() => new Pacer(limiter, { pollMs: 0 })).toThrow(InvalidOptionError);
    expect(pacer.waiting()).toBe(0);
  });

  it("a subject without a limit is admitted at once", async () => {
    const { pacer } = localPacer();
    await pacer.wait("no-policy", { cost: 1000 });
  });

  it("rejects every waiter when the limiter is shut down", async () => {
    const { clock, limiter, pacer } = localPacer();
    for (let i = 0; i < 10; i++) await pacer.wait("api");
    const waiting = [pacer.wait("api"), pacer.wait("api")].map((p) => p.catch((e: unknown) => e));
    await limiter.shutdown();
    await clock.advanceAsync(10);
    for (const e of await Promise.all(waiting)) expect(e).toBeInstanceOf(LimiterClosedError);
    expect(pacer.waiting()).toBe(0);
  });

  it("four replicas pacing one subject on a shared store stay within the limit and use most of it", async () => {
    const clock = new ManualClock();
    clock.set(Math.ceil(clock.unixMs() / 1000) * 1000 + 1);
    const store = new MemoryStore(clock);
    const replicas = Array.from(
      { length: 4 },
      (_, i) => new Limiter({ service: "pace", podId: `p${i}` }, store, clock),
    );
    const perSecond = new Map<number, number>();
    let stop = false;
    await Promise.all(replicas.map((l) => l.start()));
    const workers = replicas.flatMap((l) => {
      l.setPolicy("upstream", { algorithm: "fixed_window", requestsPerSecond: 100 });
      const pacer = new Pacer(l, { maxWaitMs: 60_000 }, clock);
      return Array.from({ length: 20 }, async () => {
        while (!stop) {
          await pacer.wait("upstream");
          if (stop) return;
          const second = Math.floor(clock.unixMs() / 1000);
          perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
        }
      });
    });
    for (let ms = 0; ms < 10_000; ms += 10) await clock.advanceAsync(10);
    stop = true;
    for (let ms = 0; ms < 2_000 && replicas.length; ms += 100) await clock.advanceAsync(100);
    await Promise.all(replicas.map((l) => l.shutdown()));
    await clock.advanceAsync(100);
    await Promise.allSettled(workers);
    const full = [...perSecond.entries()]
      .sort(([a], [b]) => a - b)
      .slice(1, 9)
      .map(([, n]) => n);
    expect(Math.max(...full)).toBeLessThanOrEqual(100);
    expect(full.reduce((a, n) => a + n, 0) / full.length).toBeGreaterThanOrEqual(90);
  });
});

describe("Pacer: a waiter that leaves while its check is in flight", () => {
  /** A limiter whose every decision needs a sync: the check resolves when the test says. */
  function syncingLimiter() {
    const pending: Array<(d: Decision) => void> = [];
    const settled: Array<{ subject: string; delta: number }> = [];
    const limiter: PacedLimiter = {
      tryCheck: () => undefined,
      check: () => new Promise<Decision>((resolve) => pending.push(resolve)),
      settle: (subject, delta) => {
        settled.push({ subject, delta });
        return delta;
      },
      storeTime: () => 0,
    };
    return { limiter, pending, settled };
  }
  const allow = { kind: "allow", headers: {} } as unknown as Decision;

  it("gives the units back when the check admits after the waiter aborted", async () => {
    const clock = new ManualClock();
    const { limiter, pending, settled } = syncingLimiter();
    const pacer = new Pacer(limiter, {}, clock);
    const controller = new AbortController();
    const left = pacer.wait("api", { cost: 3, signal: controller.signal }).catch((e: unknown) => e);
    expect(pending).toHaveLength(1);
    controller.abort(new Error("gone"));
    expect(((await left) as Error).message).toBe("gone");
    pending[0]!(allow);
    await clock.advanceAsync(1);
    expect(settled).toEqual([{ subject: "api", delta: -3 }]);
    expect(pacer.waiting()).toBe(0);
  });

  it("gives nothing back when the check denied", async () => {
    const clock = new ManualClock();
    const { limiter, pending, settled } = syncingLimiter();
    const pacer = new Pacer(limiter, {}, clock);
    const left = pacer.wait("api", { maxWaitMs: 10 }).catch((e: unknown) => e);
    await clock.advanceAsync(20);
    expect(await left).toBeInstanceOf(WaitTimeoutError);
    pending[0]!({ kind: "deny", reason: "limited", headers: {} } as unknown as Decision);
    await clock.advanceAsync(1);
    expect(settled).toEqual([]);
  });
});
