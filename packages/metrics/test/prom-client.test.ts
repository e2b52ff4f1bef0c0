import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerPromClient } from "../src/index.js";
import { sampleSource } from "./sample-source.js";

describe("promClientMetrics", () => {
  it("registers in a prom-client registry, which prints HELP, TYPE and current values", async () => {
    const registry = new Registry();
    const { source, state } = sampleSource();
    registerPromClient(registry, source);
    state.allowed = 7;
    const text = await registry.metrics();
    expect(text).toContain("# HELP resil_test_decisions_total Decisions made");
    expect(text).toContain("# TYPE resil_test_decisions_total counter");
    expect(text).toContain('resil_test_decisions_total{resil_outcome="allow"} 7');
    expect(text).toContain('resil_test_sync_duration_seconds_bucket{le="+Inf"} 4');
    expect(text).toContain("# TYPE resil_test_replicas gauge");
  });
});
