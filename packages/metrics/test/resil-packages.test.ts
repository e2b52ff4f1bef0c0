import { type DataPoint, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { TwoTier } from "@resil/breaker";
import { classify, failureFrom } from "@resil/classify";
import { Limiter, ManualClock, MemoryStore } from "@resil/limit";
import { RetryPolicy, retry } from "@resil/retry";
import { describe, expect, it } from "vitest";
import { formatPrometheus, RetryRecorder, registerOpenTelemetry, resilMetrics } from "../src/index.js";

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** A limiter that decided for 1,000 subjects, breakers that opened, and retries that ran. */
async function busyParts() {
  const clock = new ManualClock();
  const limiter = new Limiter({ service: "gw", podId: "p0" }, new MemoryStore(clock), clock);
  for (let i = 0; i < 1000; i++) {
    limiter.setPolicy(`user-${i}`, { requestsPerSecond: 10 }, 2);
    await limiter.check(`user-${i}`);
    await limiter.acquire(`user-${i}`);
  }
  const breakers = new TwoTier();
  for (let i = 0; i < 5; i++)
    breakers.recordFailure("gpt-4o@east", "azure|east", { breaker: { kind: "vendor" } });
  const recorder = new RetryRecorder();
  const busy = () => new Response(null, { status: 503, headers: { "retry-after-ms": "1" } });
  await retry(
    RetryPolicy.interactive({ numRetries: 2, maxDelayS: 1 }),
    { budgetMs: 5_000 },
    async () => {
      throw busy();
    },
    (e) => classify(failureFrom(e)),
    recorder.hooks,
  );
  return { limiter, breakers, recorder };
}

describe("resilMetrics over the packages", () => {
  it("the OpenTelemetry SDK sees the limiter's, breakers' and retries' instruments, with bounded attributes", async () => {
    const { limiter, breakers, recorder } = await busyParts();
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    registerOpenTelemetry(provider.getMeter("resil"), resilMetrics([limiter, breakers, recorder]));
    const { resourceMetrics } = await reader.collect();
    const seen = new Map<string, Array<DataPoint<unknown>>>();
    for (const scope of resourceMetrics.scopeMetrics)
      for (const m of scope.metrics) seen.set(m.descriptor.name, m.dataPoints as Array<DataPoint<unknown>>);

    const sum = (name: string, match: Record<string, string>) =>
      (seen.get(name) ?? [])
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((a, p) => a + (p.value as number), 0);
    expect(sum("resil.limiter.decisions", { "resil.outcome": "allow" })).toBe(1000);
    expect(sum("resil.limiter.slot.decisions", { "resil.outcome": "allow" })).toBe(1000);
    expect(sum("resil.limiter.slots.active", {})).toBe(1000);
    expect(sum("resil.breaker.transitions", { "resil.breaker.state": "open" })).toBe(1);
    expect(sum("resil.retry.retries", {})).toBe(2);
    expect(sum("resil.retry.give_ups", { "resil.retry.stop": "exhausted" })).toBe(1);
    expect(seen.has("resil.limiter.sync.duration.count")).toBe(true);

    // 1,000 subjects, yet every instrument has a handful of series and no subject attribute.
    for (const [name, points] of seen) {
      expect(points.length, name).toBeLessThanOrEqual(16);
      for (const p of points) expect(Object.keys(p.attributes), name).not.toContain("resil.subject");
    }
    await provider.shutdown();
    await limiter.shutdown();
  });

  it("renders the same parts as Prometheus text, HELP and TYPE before every family", async () => {
    const { limiter, breakers, recorder } = await busyParts();
    const text = formatPrometheus(resilMetrics([limiter, breakers, recorder])());
    const declared: string[] = [];
    for (const line of text.trimEnd().split("\n")) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
      if (type) declared.push(type[1]!);
      else if (!line.startsWith("# HELP ")) {
        const name = /^([a-z_]+)[{ ]/.exec(line)![1]!;
        const family = declared.at(-1)!;
        expect(name === family || name.startsWith(`${family}_`), line).toBe(true);
      }
    }
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared).toEqual(
      expect.arrayContaining([
        "resil_limiter_decisions_total",
        "resil_limiter_slot_decisions_total",
        "resil_limiter_sync_duration_seconds",
        "resil_breaker_transitions_total",
        "resil_retry_retries_total",
      ]),
    );
    expect(text).toContain(
      'resil_limiter_decisions_total{resil_service="gw",resil_outcome="allow",resil_mode=',
    );
    await limiter.shutdown();
  });
});
