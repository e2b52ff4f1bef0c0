import { describe, expect, it } from "vitest";
import { formatPrometheus, prometheusName } from "../src/index.js";
import { sampleSource } from "./sample-source.js";

/** A small parser of the text format: every sample must follow the HELP and TYPE of its family. */
function parse(text: string): Map<string, { type: string; help: string; samples: string[] }> {
  const families = new Map<string, { type: string; help: string; samples: string[] }>();
  let current: string | undefined;
  for (const line of text.trimEnd().split("\n")) {
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    const type = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
    if (help) {
      current = help[1]!;
      families.set(current, { help: help[2]!, type: "", samples: [] });
    } else if (type) {
      expect(type[1]).toBe(current);
      families.get(current!)!.type = type[2]!;
    } else {
      const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
      expect(sample, line).not.toBeNull();
      expect(sample![1]!.startsWith(current!), line).toBe(true);
      expect(Number.isNaN(Number(sample![3]))).toBe(false);
      families.get(current!)!.samples.push(line);
    }
  }
  return families;
}

describe("formatPrometheus", () => {
  it("writes HELP and TYPE before each family, with Prometheus names and labels", () => {
    const { source } = sampleSource();
    const families = parse(formatPrometheus(source()));
    expect([...families.keys()]).toEqual([
      "resil_test_decisions_total",
      "resil_test_replicas",
      "resil_test_sync_duration_seconds",
    ]);
    expect(families.get("resil_test_decisions_total")).toEqual({
      help: "Decisions made",
      type: "counter",
      samples: [
        'resil_test_decisions_total{resil_outcome="allow"} 3',
        'resil_test_decisions_total{resil_outcome="deny"} 1',
      ],
    });
    expect(families.get("resil_test_sync_duration_seconds")!.samples).toEqual([
      'resil_test_sync_duration_seconds_bucket{le="0.01"} 2',
      'resil_test_sync_duration_seconds_bucket{le="0.1"} 3',
      'resil_test_sync_duration_seconds_bucket{le="+Inf"} 4',
      "resil_test_sync_duration_seconds_sum 0.5",
      "resil_test_sync_duration_seconds_count 4",
    ]);
  });

  it("escapes label values and help text", () => {
    const text = formatPrometheus([
      {
        kind: "gauge",
        name: "g",
        description: "a\\b\nc",
        unit: "1",
        points: [{ attributes: { k: 'x"y\nz' }, value: 1 }],
      },
    ]);
    expect(text).toBe('# HELP g_ratio a\\\\b\\nc\n# TYPE g_ratio gauge\ng_ratio{k="x\\"y\\nz"} 1\n');
  });

  it("names counters with _total once and units as suffixes", () => {
    expect(prometheusName({ name: "a.b", unit: "s", kind: "counter" })).toBe("a_b_seconds_total");
    expect(prometheusName({ name: "a.b_total", unit: "{x}", kind: "counter" })).toBe("a_b_total");
    expect(prometheusName({ name: "a.b", unit: "{x}", kind: "gauge" })).toBe("a_b");
  });
});
