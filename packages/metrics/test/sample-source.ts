import type { MetricFamily, MetricSource } from "../src/index.js";

/** A source whose counter the test moves between reads. */
export function sampleSource(): { source: MetricSource; state: { allowed: number } } {
  const state = { allowed: 3 };
  const source: MetricSource = (): MetricFamily[] => [
    {
      kind: "counter",
      name: "resil.test.decisions",
      description: "Decisions made",
      unit: "{decision}",
      points: [
        { attributes: { "resil.outcome": "allow" }, value: state.allowed },
        { attributes: { "resil.outcome": "deny" }, value: 1 },
      ],
    },
    {
      kind: "gauge",
      name: "resil.test.replicas",
      description: "Replicas seen",
      unit: "{replica}",
      points: [{ attributes: {}, value: 4 }],
    },
    {
      kind: "histogram",
      name: "resil.test.sync.duration",
      description: "Round trip to the store",
      unit: "s",
      points: [{ attributes: {}, bounds: [0.01, 0.1], counts: [2, 1, 1], sum: 0.5, count: 4 }],
    },
  ];
  return { source, state };
}
