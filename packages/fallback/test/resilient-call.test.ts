import { TwoTier } from "@resil/breaker";
import { InvalidDeadlineError, ManualClock, RetryPolicy } from "@resil/retry";
import { describe, expect, it, vi } from "vitest";
import { type CallEvent, type LimiterLike, ResilientCaller, type SlotDecision } from "../src/index.js";

const headers = { limit: 10, remaining: 0, reset: 0, retryAfter: 3 };
class Status extends Error {
  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}

function limiter(deny: boolean, slot?: SlotDecision): LimiterLike & { released: number } {
  const out = {
    released: 0,
    check: async () => (deny ? { kind: "deny" as const, headers } : { kind: "allow" as const, headers }),
    acquire: async (): Promise<SlotDecision> =>
      slot ?? { kind: "acquired", slot: { release: () => void out.released++ } },
  };
  return out;
}

describe("ResilientCaller", () => {
  it("a limiter denial skips the hop and gives the breaker's probe back", async () => {
    const clock = new ManualClock();
    const breakers = new TwoTier({ clock });
    breakers.deployment.openFor("a", 1000);
    await clock.advance(1000);
    const denied = new ResilientCaller({ clock, breakers, limiter: limiter(true) });
    const first = await denied.call(["a"], async () => "x");
    expect(first.hops[0]).toMatchObject({
      outcome: "skipped",
      skip: { kind: "rateLimited", retryAfterMs: 3000 },
    });
    expect(first.result).toEqual({ ok: false, error: { kind: "exhausted", rateLimitedMs: 3000 } });
    // the probe is free again: the next caller probes now, not 30 s later
    expect(breakers.check("a", "a").allowed).toBe(true);
  });

  it("holds a slot for the hop and releases it whatever happens", async () => {
    const gate = limiter(false);
    const caller = new ResilientCaller({ limiter: gate });
    await caller.call(["a"], async () => "x");
    await caller.call(["a"], async () => {
      throw new Status(503);
    });
    expect(gate.released).toBe(2);
    const full = new ResilientCaller({ limiter: limiter(false, { kind: "denied", max: 4, retryAfter: 1 }) });
    const report = await full.call(["a"], async () => "x");
    expect(report.hops[0]?.skip).toEqual({ kind: "rateLimited", retryAfterMs: 1000 });
  });

  it("retries within a hop under the policy, then fails over", async () => {
    const clock = new ManualClock();
    const send = vi.fn(async (endpoint: string) => {
      if (endpoint === "a") throw new Status(503);
      return endpoint;
    });
    const caller = new ResilientCaller({
      clock,
      random: () => 0,
      retryPolicy: RetryPolicy.standard({ numRetries: 2, maxDelayS: 10 }),
      failoverAfterMs: 5000,
    });
    const report = await clock.run(caller.call(["a", "b"], send));
    expect(report.result).toEqual({ ok: true, endpoint: "b", value: "b" });
    expect(report.hops[0]!.attempts.map((a) => a.waitMs)).toEqual([1000, 2000, undefined]);
    expect(report.hops[0]!.stop).toBe("exhausted");
    expect(clock.now()).toBe(3000);
  });

  it("surfaces a caller's mistake without trying the next hop", async () => {
    const send = vi.fn(async () => {
      throw new Status(400);
    });
    const report = await new ResilientCaller().call(["a", "b"], send);
    expect(report.result).toMatchObject({ ok: false, error: { kind: "surfaced", endpoint: "a" } });
    expect(send).toHaveBeenCalledTimes(1);
  });

  it("stops at the caller's abort and reports it", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const caller = new ResilientCaller({ clock });
    const pending = caller.call(["a", "b"], (_e, signal) => clock.sleep(10_000, signal), {
      signal: controller.signal,
    });
    await clock.advance(10);
    controller.abort("client left");
    const report = await pending;
    expect(report.result).toEqual({ ok: false, error: { kind: "aborted", reason: "client left" } });
    expect(report.hops).toHaveLength(1);
  });

  it("rejects a deadline on another timeline", async () => {
    await expect(new ResilientCaller().call(["a"], () => 1, { deadline: Date.now() + 150 })).rejects.toThrow(
      InvalidDeadlineError,
    );
  });

  it("emits attempts then hops, ignores a throwing listener, and counts in metrics", async () => {
    const events: CallEvent[] = [];
    const caller = new ResilientCaller({
      onEvent: (e) => {
        events.push(e);
        throw new Error("listener broke");
      },
    });
    const report = await caller.call(["a", "b"], async (e) => {
      if (e === "a") throw new Status(503);
      return e;
    });
    expect(report.result).toMatchObject({ ok: true, endpoint: "b" });
    expect(events.map((e) => `${e.type}:${e.endpoint}`)).toEqual([
      "attempt:a",
      "hop:a",
      "attempt:b",
      "hop:b",
    ]);
    const value = (name: string, labels: Record<string, string> = {}) =>
      caller
        .metrics()
        .samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
    expect(value("resil_calls_total", { result: "served" })).toBe(1);
    expect(value("resil_call_fallbacks_total")).toBe(1);
    expect(value("resil_call_hops_total", { outcome: "failed" })).toBe(1);
    expect(value("resil_call_attempts_total", { outcome: "error" })).toBe(1);
  });

  it("a throwing hook fails its hop and the chain moves on", async () => {
    const caller = new ResilientCaller({
      ineligible: (e) => {
        if (e === "a") throw new Error("hook broke");
        return undefined;
      },
      trigger: () => true,
    });
    const report = await caller.call(["a", "b"], async (e) => e);
    expect(report.result).toMatchObject({ ok: true, endpoint: "b" });
    expect(report.hops[0]).toMatchObject({ outcome: "failed" });
  });
});
