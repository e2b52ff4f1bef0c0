import { type TransitionEvent, TwoTier } from "@resil/breaker";
import { classify, failureFrom } from "@resil/classify";
import { RetryPolicy, retry } from "@resil/retry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadlineIn, guardedAttempt, type HopEvent, run, systemClock } from "../src/index.js";
import { startUpstream, type Upstream } from "./upstream.js";

const verdictOf = (error: unknown) => classify(failureFrom(error));

// Each target's provider key: t503 and reset share one, so only that provider earns a provider-wide open.
const vendors: Record<string, string> = {
  t429: "v429",
  t503: "acme",
  reset: "acme",
  hang: "slow",
  ok: "good",
};
const chain = ["t429", "t503", "reset", "hang", "ok"];

let upstream: Upstream;
let hits: Record<string, number>;

beforeAll(async () => {
  upstream = await startUpstream();
  hits = upstream.hits;
});

afterAll(() => upstream.close());

/** A gateway client: per-target retries recorded on the breakers, a chain that skips open breakers. */
function gateway(options: { attemptTimeoutMs?: number; policy: RetryPolicy }) {
  const transitions: TransitionEvent[] = [];
  const breakers = new TwoTier({ clock: systemClock, onTransition: (e) => transitions.push(e) });

  async function get(endpoint: string, signal: AbortSignal): Promise<string> {
    const timeout = options.attemptTimeoutMs;
    return upstream.get(
      endpoint,
      timeout === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(timeout)]),
    );
  }

  async function request(deadlineMs: number) {
    const hops: HopEvent<string>[] = [];
    const attempt = guardedAttempt({
      breakers,
      vendorOf: (e) => vendors[e]!,
      call: async (endpoint, signal) => {
        const vendor = vendors[endpoint]!;
        const out = await retry(
          options.policy,
          deadlineMs,
          async (_n, s) => {
            try {
              const body = await get(endpoint, s);
              breakers.recordSuccess(endpoint, vendor);
              return body;
            } catch (error) {
              breakers.recordFailure(endpoint, vendor, verdictOf(error));
              throw error;
            }
          },
          verdictOf,
          { signal },
        );
        if (!out.result.ok) throw out.result.error;
        return out.result.value;
      },
    });
    // an LLM-gateway trigger: fall back on anything that is not the caller's own mistake
    const trigger = (error: unknown) => !verdictOf(error).callerError;
    const started = systemClock.now();
    const outcome = await run(chain, deadlineMs, attempt, trigger, { onHop: (e) => hops.push(e) });
    return { outcome, hops, elapsedMs: systemClock.now() - started };
  }

  return { breakers, transitions, request };
}

const shape = (hops: HopEvent<string>[]) =>
  hops.map(({ endpoint, hop }) => `${endpoint}:${hop.kind === "skipped" ? hop.skip.kind : hop.kind}`);

describe("e2e: classify + retry + breaker + fallback composed by hand, against a local upstream", () => {
  it("reaches the healthy target in time and opens the breakers that were earned", async () => {
    for (const k of Object.keys(hits)) delete hits[k];
    const gw = gateway({
      attemptTimeoutMs: 100,
      policy: RetryPolicy.interactive({ numRetries: 2, maxDelayS: 0.02 }),
    });

    const first = await gw.request(deadlineIn(2000));
    expect(first.outcome.result).toEqual({ ok: true, endpoint: "ok", value: "hello from ok" });
    expect(first.outcome.fellBack()).toBe(true);
    expect(first.elapsedMs).toBeLessThan(2000);
    expect(shape(first.hops)).toEqual([
      "t429:failed",
      "t503:failed",
      "reset:failed",
      "hang:failed",
      "ok:served",
    ]);
    const failures = first.hops.flatMap(({ hop }) => (hop.kind === "failed" ? [verdictOf(hop.error)] : []));
    expect(failures.map((v) => v.breaker)).toEqual([
      { kind: "openFor", ms: 30_000 },
      { kind: "vendor" },
      { kind: "vendor" },
      { kind: "vendor" },
    ]);
    // the 30 s hint crosses the 2 s deadline: one call, no wait; the others used all their retries
    expect(hits).toEqual({ t429: 1, t503: 3, reset: 3, hang: 3, ok: 1 });

    const second = await gw.request(deadlineIn(2000));
    expect(second.outcome.result).toMatchObject({ ok: true, endpoint: "ok" });
    expect(shape(second.hops)).toEqual([
      "t429:breakerOpen",
      "t503:breakerOpen",
      "reset:breakerOpen",
      "hang:failed",
      "ok:served",
    ]);
    const t429Skip = second.hops[0]!.hop;
    expect(
      t429Skip.kind === "skipped" && t429Skip.skip.kind === "breakerOpen" && t429Skip.skip.retryInMs,
    ).toSatisfy((ms: number) => ms > 25_000 && ms <= 30_000);

    const third = await gw.request(deadlineIn(2000));
    expect(shape(third.hops)).toEqual([
      "t429:breakerOpen",
      "t503:breakerOpen",
      "reset:breakerOpen",
      "hang:breakerOpen",
      "ok:served",
    ]);
    expect(hits).toEqual({ t429: 1, t503: 3, reset: 3, hang: 6, ok: 3 });

    const opened = gw.transitions.filter((t) => t.to === "open").map((t) => `${t.tier}:${t.key}:${t.cause}`);
    expect(opened).toEqual(["deployment:t429:openFor", "vendor:acme:threshold", "deployment:hang:threshold"]);
    // one failing target is not its provider's fault; the healthy target and its provider stay closed
    expect(gw.breakers.vendor.state("slow").value).toBe("closed");
    expect(gw.breakers.deployment.state("t503").value).toBe("closed");
    expect(gw.breakers.deployment.state("ok").value).toBe("closed");
    expect(gw.breakers.vendor.state("good").value).toBe("closed");
  });

  it("the deadline aborts a hanging hop and ends the chain", async () => {
    for (const k of Object.keys(hits)) delete hits[k];
    const gw = gateway({ policy: RetryPolicy.none() });
    const result = await gw.request(deadlineIn(300));
    expect(result.elapsedMs).toBeLessThan(1500);
    expect(shape(result.hops)).toEqual(["t429:failed", "t503:failed", "reset:failed", "hang:failed"]);
    expect(result.outcome.result).toMatchObject({
      ok: false,
      error: { kind: "exhausted", first: { endpoint: "t429" }, last: { endpoint: "hang" } },
    });
    const last = result.outcome.result.ok ? undefined : result.outcome.result.error;
    expect(last?.kind === "exhausted" && last.last?.error).toMatchObject({ name: "DeadlineExceededError" });
    expect(hits.ok).toBeUndefined();
  });
});
