import { BreakerConfig, TwoTier } from "@resil/breaker";
import { RetryPolicy } from "@resil/retry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlineExceededError, ResilientCaller } from "../src/index.js";
import { startUpstream, type Upstream } from "./upstream.js";

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const send = (endpoint: string, signal: AbortSignal) => upstream.get(endpoint, signal);

describe("e2e: the composed call against a local upstream", () => {
  it("cuts a hanging hop at the per-attempt timeout and serves from the healthy hop within the deadline", async () => {
    const caller = new ResilientCaller({ attemptTimeoutMs: 100, breakers: new TwoTier() });
    const report = await caller.call(["hang", "ok"], send, { deadline: { budgetMs: 1000 } });
    expect(report.result).toEqual({ ok: true, endpoint: "ok", value: "hello from ok" });
    expect(report.elapsedMs).toBeLessThan(1000);
    const hang = report.hops[0]!;
    expect(hang).toMatchObject({ endpoint: "hang", outcome: "failed", stop: "exhausted" });
    expect(hang.attempts).toHaveLength(1);
    expect(hang.attempts[0]).toMatchObject({ timedOut: true, error: { name: "AttemptTimeoutError" } });
    expect(hang.attempts[0]!.durationMs).toBeGreaterThanOrEqual(90);
  });

  it("without a per-attempt timeout the hang eats the budget, and the error names it", async () => {
    const caller = new ResilientCaller();
    const report = await caller.call(["hang2", "ok"], send, { deadline: { budgetMs: 200 } });
    expect(report.result).toEqual({ ok: false, error: { kind: "deadlineExceeded" } });
    const error = report.hops[0]!.attempts[0]!.error;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as Error).message).toBe("200 ms budget exceeded");
  });

  it("fails over first: a 2 s Retry-After is not waited out while the next hop is healthy", async () => {
    upstream.hits.t429short = 0;
    const caller = new ResilientCaller({
      retryPolicy: RetryPolicy.interactive({ numRetries: 3, maxDelayS: 5 }),
      failoverAfterMs: 1000,
    });
    const report = await caller.call(["t429short", "ok"], send, { deadline: { budgetMs: 5000 } });
    expect(report.result).toMatchObject({ ok: true, endpoint: "ok" });
    expect(report.elapsedMs).toBeLessThan(1000);
    expect(report.hops[0]).toMatchObject({ outcome: "failed", stop: "failoverFirst" });
    expect(upstream.hits.t429short).toBe(1);
  });

  it("an error-rate breaker opens at 50 % errors once 20 calls were seen", async () => {
    const breakers = new TwoTier({
      deployment: BreakerConfig.errorRate({ minimumVolume: 20, failureRateThreshold: 0.5 }),
    });
    const caller = new ResilientCaller({ breakers });
    for (let i = 0; i < 19; i++) await caller.call(["flaky"], send);
    expect(breakers.deployment.state("flaky").value).toBe("closed");
    await caller.call(["flaky"], send);
    expect(breakers.deployment.state("flaky").value).toBe("open");
    const refused = await caller.call(["flaky", "ok"], send);
    expect(refused.hops[0]).toMatchObject({ outcome: "skipped", skip: { kind: "breakerOpen" } });
    expect(refused.result).toMatchObject({ ok: true, endpoint: "ok" });
  });

  it("an error-rate breaker stays closed at 5 failures in 10,000 calls", async () => {
    const breakers = new TwoTier({
      deployment: BreakerConfig.errorRate({ minimumVolume: 20, windowMs: 60_000 }),
    });
    const caller = new ResilientCaller({ breakers });
    let failed = 0;
    // 10 callers at a time, as a gateway would see them
    for (let i = 0; i < 10_000; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => caller.call(["rare"], send)));
      failed += batch.filter((r) => !r.result.ok).length;
    }
    expect(failed).toBe(5);
    expect(breakers.deployment.state("rare").value).toBe("closed");
    const served = caller
      .metrics()
      .samples.find((s) => s.name === "resil_calls_total" && s.labels.result === "served");
    expect(served?.value).toBe(9995);
  }, 60_000);
});
