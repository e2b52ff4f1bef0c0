import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { Pacer } from "../../src/cluster/pacer.js";
import { InvalidBudgetError } from "../../src/cluster/upstream-hold.js";

/** A store-less limiter and a pacer on one manual clock; "upstream" has no limit of its own unless given. */
function setup(limit?: number) {
  const clock = new ManualClock();
  clock.set(Math.ceil(clock.unixMs() / 1000) * 1000 + 1);
  const limiter = new Limiter({ podId: "p" }, undefined, clock);
  if (limit !== undefined)
    limiter.setPolicy("upstream", { algorithm: "fixed_window", requestsPerSecond: limit });
  const pacer = new Pacer(limiter, { maxWaitMs: 120_000 }, clock);
  const start = clock.monoMs();
  const admittedAt: number[] = [];
  const queue = (n: number, cost = 1) =>
    Array.from({ length: n }, () =>
      pacer.wait("upstream", { cost }).then(() => admittedAt.push(clock.monoMs() - start)),
    );
  return { clock, limiter, pacer, admittedAt, queue };
}

describe("Pacer.observe: the upstream's own budget", () => {
  it("remaining 0 holds every wait until the upstream's reset, then admits them", async () => {
    const { clock, pacer, admittedAt, queue } = setup();
    expect(pacer.observe("upstream", { remaining: 0, resetInMs: 2_000 })).toBe(true);
    const waits = queue(3);
    await clock.advanceAsync(1_999);
    expect(admittedAt).toEqual([]);
    expect(pacer.waiting("upstream")).toBe(3);
    await clock.advanceAsync(1);
    await Promise.all(waits);
    expect(admittedAt).toEqual([2_000, 2_000, 2_000]);
    expect(pacer.upstreamLeft("upstream")).toBeUndefined(); // the hold lapsed with its reset
  });

  it("admits what remains at once, counts it down, and holds the rest until the reset", async () => {
    const { clock, pacer, admittedAt, queue } = setup();
    pacer.observe("upstream", { remaining: 3, resetInMs: 1_000 });
    const waits = queue(5);
    await clock.advanceAsync(0);
    expect(admittedAt).toEqual([0, 0, 0]);
    expect(pacer.upstreamLeft("upstream")).toBe(0);
    await clock.advanceAsync(1_000);
    await Promise.all(waits);
    expect(admittedAt).toEqual([0, 0, 0, 1_000, 1_000]);
  });

  it("with the full limit known, what the upstream allows refills evenly until its reset", async () => {
    const { clock, pacer, admittedAt, queue } = setup();
    pacer.observe("upstream", { remaining: 0, limit: 10, resetInMs: 1_000 }); // 1 unit per 100 ms
    const waits = queue(4);
    for (let ms = 0; ms < 1_000; ms += 10) await clock.advanceAsync(10);
    await Promise.all(waits);
    expect(admittedAt).toEqual([100, 200, 300, 400]);
  });

  it("a cost the hold cannot cover waits for the reset and is not overtaken by smaller ones", async () => {
    const { clock, pacer, admittedAt, queue } = setup();
    pacer.observe("upstream", { remaining: 500, resetInMs: 60_000 });
    const big = queue(1, 800);
    const small = queue(1, 10);
    await clock.advanceAsync(59_999);
    expect(admittedAt).toEqual([]);
    await clock.advanceAsync(1);
    await Promise.all([...big, ...small]);
    expect(admittedAt).toEqual([60_000, 60_000]);
  });

  it("ignores a stale report allowing more; a tighter one replaces the hold and wakes the queue", async () => {
    const { clock, pacer, admittedAt, queue } = setup();
    pacer.observe("upstream", { remaining: 0, resetInMs: 5_000 });
    const waits = queue(1);
    await clock.advanceAsync(100);
    expect(pacer.observe("upstream", { remaining: 7, resetInMs: 50 })).toBe(false); // answers an earlier call
    expect(pacer.observe("upstream", { remaining: 0, resetInMs: 300 })).toBe(true); // the provider's latest word
    await clock.advanceAsync(299);
    expect(admittedAt).toEqual([]);
    await clock.advanceAsync(1);
    await Promise.all(waits);
    expect(admittedAt).toEqual([400]);
  });

  it("the limiter's own limit still applies under a looser upstream budget", async () => {
    const { clock, pacer, admittedAt, queue } = setup(10);
    pacer.observe("upstream", { remaining: 50, resetInMs: 10_000 });
    const waits = queue(15);
    await clock.advanceAsync(500);
    expect(admittedAt.length).toBe(10);
    await clock.advanceAsync(1_000);
    await Promise.all(waits);
    expect(pacer.upstreamLeft("upstream")).toBe(35);
  });

  it("an aborted or timed-out wait during a hold leaves no waiter and no timer behind", async () => {
    const { clock, pacer } = setup();
    const idle = clock.pendingTimers();
    pacer.observe("upstream", { remaining: 0, resetInMs: 10_000 });
    const controller = new AbortController();
    const aborted = pacer.wait("upstream", { signal: controller.signal }).catch((e: unknown) => e);
    const timedOut = pacer.wait("upstream", { maxWaitMs: 500 }).catch((e: unknown) => e);
    await clock.advanceAsync(100);
    controller.abort(new Error("gone"));
    expect(((await aborted) as Error).message).toBe("gone");
    await clock.advanceAsync(500);
    expect((await timedOut) as Error).toHaveProperty("name", "WaitTimeoutError");
    expect(pacer.waiting()).toBe(0);
    expect(clock.pendingTimers()).toBe(idle);
  });

  it("a budget without remaining or reset changes nothing; a bad field is an InvalidBudgetError naming it", () => {
    const { pacer } = setup();
    expect(pacer.observe("upstream", { remaining: 0 })).toBe(false);
    expect(pacer.observe("upstream", { resetInMs: 1_000 })).toBe(false);
    expect(pacer.observe("upstream", { remaining: 0, resetInMs: 0 })).toBe(false);
    expect(pacer.upstreamLeft("upstream")).toBeUndefined();
    for (const [field, budget] of [
      ["remaining", { remaining: -1, resetInMs: 1 }],
      ["remaining", { remaining: 1.5, resetInMs: 1 }],
      ["limit", { remaining: 1, limit: Number.NaN, resetInMs: 1 }],
      ["resetInMs", { remaining: 1, resetInMs: Number.POSITIVE_INFINITY }],
      ["resetInMs", { remaining: 1, resetInMs: -5 }],
    ] as const) {
      let err: unknown;
      try {
        pacer.observe("upstream", budget);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidBudgetError);
      expect((err as InvalidBudgetError).field).toBe(field);
    }
  });

  it("holds are per subject and lapse: many observed subjects leave nothing live after their resets", async () => {
    const { clock, pacer } = setup();
    for (let i = 0; i < 1_000; i++) pacer.observe(`s${i}`, { remaining: 0, resetInMs: 100 + i });
    expect(pacer.upstreamLeft("s0")).toBe(0);
    expect(pacer.upstreamLeft("other")).toBeUndefined();
    await clock.advanceAsync(1_100);
    for (let i = 0; i < 1_000; i += 99) expect(pacer.upstreamLeft(`s${i}`)).toBeUndefined();
    await pacer.wait("s5"); // no hold left: admitted at once
  });
});
