import { metrics } from "@opentelemetry/api";
import { type DataPoint, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { type MeterLike, registerOpenTelemetry } from "../src/index.js";
import { sampleSource } from "./sample-source.js";

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

async function read(reader: TestReader): Promise<Map<string, Array<DataPoint<unknown>>>> {
  const { resourceMetrics } = await reader.collect();
  const out = new Map<string, Array<DataPoint<unknown>>>();
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics) out.set(m.descriptor.name, m.dataPoints as Array<DataPoint<unknown>>);
  return out;
}

describe("registerOpenTelemetry", () => {
  it("is satisfied by @opentelemetry/api's Meter, a no-op without an SDK", () => {
    const meter: MeterLike = metrics.getMeter("resil-test");
    const { source } = sampleSource();
    expect(() => registerOpenTelemetry(meter, source).unregister()).not.toThrow();
  });

  it("reports each family through the SDK, read again at every collection", async () => {
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    const { source, state } = sampleSource();
    const registration = registerOpenTelemetry(provider.getMeter("resil-test"), source);

    let seen = await read(reader);
    expect([...seen.keys()].sort()).toEqual([
      "resil.test.decisions",
      "resil.test.replicas",
      "resil.test.sync.duration.count",
      "resil.test.sync.duration.sum",
    ]);
    expect(seen.get("resil.test.decisions")!.map((p) => [p.attributes, p.value])).toEqual([
      [{ "resil.outcome": "allow" }, 3],
      [{ "resil.outcome": "deny" }, 1],
    ]);
    expect(seen.get("resil.test.sync.duration.count")![0]!.value).toBe(4);

    state.allowed = 10;
    seen = await read(reader);
    expect(seen.get("resil.test.decisions")![0]!.value).toBe(10);

    registration.unregister();
    state.allowed = 99;
    seen = await read(reader);
    expect(seen.get("resil.test.decisions")?.[0]?.value).not.toBe(99);
    await provider.shutdown();
  });
});
