import { TwoTier } from "@resil/breaker";
import type { Verdict } from "@resil/classify";
import { ManualClock } from "@resil/retry";
import { describe, expect, it, vi } from "vitest";
import { denialWaitMs, guardedAttempt, type RateDecision, type RateGate, run } from "../src/index.js";

const signal = new AbortController().signal;
const headers = { limit: 10, remaining: 0, reset: 1_700_000_060 };
const gate = (decide: (subject: string) => RateDecision): RateGate & { seen: string[] } => {
  const seen: string[] = [];
  return {
    seen,
    check: async (s) => {
      seen.push(s);
      return decide(s);
    },
  };
};
const v503: Verdict = {
  retryable: true,
  failover: true,
  breaker: { kind: "vendor" },
  callerError: false,
  vendorConcurrency: false,
};

describe("guardedAttempt", () => {
  it("skips a hop whose breaker is open, with the breaker's wait, before asking the limiter", async () => {
    const clock = new ManualClock();
    const breakers = new TwoTier({ clock });
    breakers.deployment.openFor("a", 20_000);
    const limiter = gate(() => ({ kind: "allow", headers }));
    const call = vi.fn(async () => "x");
    const attempt = guardedAttempt({ call, breakers, limiter });
    await clock.advance(5000);
    expect(await attempt("a", 0, signal)).toEqual({
      kind: "skipped",
      skip: { kind: "breakerOpen", retryInMs: 15_000 },
    });
    expect(limiter.seen).toEqual([]);
    expect(call).not.toHaveBeenCalled();
  });

  it("reports a provider-tier refusal for the endpoint's vendor", async () => {
    const breakers = new TwoTier({ clock: new ManualClock() });
    breakers.vendor.openFor("openai|api.openai.com", 9000);
    const attempt = guardedAttempt({ call: () => "x", breakers, vendorOf: () => "openai|api.openai.com" });
    expect(await attempt("gpt", 0, signal)).toEqual({
      kind: "skipped",
      skip: { kind: "breakerOpen", retryInMs: 9000 },
    });
  });

  it("skips a hop whose limiter denies, with retryAfter in ms", async () => {
    const limiter = gate(() => ({ kind: "deny", headers: { ...headers, retryAfter: 7 } }));
    const attempt = guardedAttempt({ call: () => "x", limiter, subjectOf: (e) => `tenant-1:${e}` });
    expect(await attempt("a", 0, signal)).toEqual({
      kind: "skipped",
      skip: { kind: "rateLimited", retryAfterMs: 7000 },
    });
    expect(limiter.seen).toEqual(["tenant-1:a"]);
  });

  it("falls back to the reset time when a denial has no retryAfter", async () => {
    const limiter = gate(() => ({ kind: "deny", headers }));
    const attempt = guardedAttempt({ call: () => "x", limiter, unixNow: () => 1_700_000_055_500 });
    expect(await attempt("a", 0, signal)).toEqual({
      kind: "skipped",
      skip: { kind: "rateLimited", retryAfterMs: 4500 },
    });
    expect(denialWaitMs(headers, 1_800_000_000_000)).toBe(0);
  });

  it("calls through on allow and unlimited, passing the signal and index", async () => {
    const call = vi.fn(async (e: string, s: AbortSignal, i: number) => `${e}:${i}:${s === signal}`);
    for (const decision of [{ kind: "unlimited" }, { kind: "allow", headers }] as const) {
      const attempt = guardedAttempt({ call, limiter: gate(() => decision) });
      expect(await attempt("a", 3, signal)).toEqual({ kind: "served", value: "a:3:true" });
    }
  });

  it("skips an ineligible endpoint with its reason", async () => {
    const call = vi.fn(() => "x");
    const attempt = guardedAttempt({
      call,
      ineligible: (e) => (e === "small" ? "context too long" : undefined),
    });
    expect(await attempt("small", 0, signal)).toEqual({
      kind: "skipped",
      skip: { kind: "ineligible", reason: "context too long" },
    });
    expect(call).not.toHaveBeenCalled();
  });

  it("with classify, records failures and successes on the breakers", async () => {
    const breakers = new TwoTier({ clock: new ManualClock() });
    let fail = true;
    const attempt = guardedAttempt({
      call: async () => {
        if (fail) throw new Error("503");
        return "ok";
      },
      breakers,
      classify: () => v503,
    });
    for (let i = 0; i < 5; i++) expect((await attempt("a", 0, signal)).kind).toBe("failed");
    expect(await attempt("a", 0, signal)).toMatchObject({ kind: "skipped", skip: { kind: "breakerOpen" } });
    breakers.deployment.recordSuccess("a");
    fail = false;
    expect(await attempt("a", 0, signal)).toEqual({ kind: "served", value: "ok" });
  });

  it("without classify, records nothing", async () => {
    const breakers = new TwoTier({ clock: new ManualClock() });
    const attempt = guardedAttempt({
      call: async () => {
        throw new Error("503");
      },
      breakers,
    });
    for (let i = 0; i < 10; i++) await attempt("a", 0, signal);
    expect(breakers.deployment.size).toBe(0);
  });

  it("never throws: a throwing guard or a rejecting limiter fails the hop, and the chain moves on", async () => {
    const boom = new Error("guard broke");
    const throwing = [
      guardedAttempt({
        call: async () => "x",
        ineligible: () => {
          throw boom;
        },
      }),
      guardedAttempt({
        call: async () => "x",
        vendorOf: () => {
          throw boom;
        },
      }),
      guardedAttempt({ call: async () => "x", limiter: { check: () => Promise.reject(boom) } }),
      guardedAttempt({
        call: async () => "x",
        limiter: gate(() => {
          throw boom;
        }),
      }),
    ];
    for (const attempt of throwing)
      expect(await attempt("a", 0, signal)).toEqual({ kind: "failed", error: boom });
    const chain = await run(
      ["a", "b"],
      undefined,
      (e, i, s) => (e === "a" ? throwing[2]!(e, i, s) : guardedAttempt({ call: async () => "b" })(e, i, s)),
      () => true,
    );
    expect(chain.result).toMatchObject({ ok: true, value: "b" });
  });

  it("a throwing classify neither hides the call's error nor fails a served hop", async () => {
    const breakers = new TwoTier({ clock: new ManualClock() });
    const callError = new Error("503");
    let fail = true;
    const attempt = guardedAttempt({
      call: async () => {
        if (fail) throw callError;
        return "ok";
      },
      breakers,
      classify: () => {
        throw new Error("classify broke");
      },
    });
    expect(await attempt("a", 0, signal)).toEqual({ kind: "failed", error: callError });
    fail = false;
    expect(await attempt("a", 0, signal)).toEqual({ kind: "served", value: "ok" });
  });

  it("in a chain, reports every skip with its wait", async () => {
    const clock = new ManualClock();
    const breakers = new TwoTier({ clock });
    breakers.deployment.openFor("a", 30_000);
    const limiter = gate((s) =>
      s === "b" ? { kind: "deny", headers: { ...headers, retryAfter: 2 } } : { kind: "allow", headers },
    );
    const attempt = guardedAttempt({ call: (e) => `from ${e}`, breakers, limiter });
    const out = await run(["a", "b", "c"], undefined, attempt, () => true, { clock });
    expect(out.result).toEqual({ ok: true, endpoint: "c", value: "from c" });
    expect(out.hops).toEqual([
      { endpoint: "a", hop: { kind: "skipped", skip: { kind: "breakerOpen", retryInMs: 30_000 } } },
      { endpoint: "b", hop: { kind: "skipped", skip: { kind: "rateLimited", retryAfterMs: 2000 } } },
      { endpoint: "c", hop: { kind: "served", value: "from c" } },
    ]);
  });
});
