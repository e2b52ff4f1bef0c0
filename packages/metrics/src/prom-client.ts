import type { MetricFamily, MetricSource } from "./model.js";
import { prometheusLabel, prometheusName } from "./prometheus-names.js";

/** One value as prom-client's registry prints it. */
export interface PromClientValue {
  value: number;
  labels: Record<string, string>;
  metricName?: string;
}

/** What prom-client's `Registry#registerMetric` needs of a metric (structural: no dependency on prom-client). */
export interface PromClientMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  readonly aggregator: "sum";
  get(): Promise<{
    name: string;
    help: string;
    type: "counter" | "gauge" | "histogram";
    aggregator: "sum";
    values: PromClientValue[];
  }>;
  reset(): void;
}

function values(f: MetricFamily, name: string): PromClientValue[] {
  const label = (a: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(a).map(([k, v]) => [prometheusLabel(k), v]));
  if (f.kind !== "histogram") return f.points.map((p) => ({ value: p.value, labels: label(p.attributes) }));
  return f.points.flatMap((p) => {
    const labels = label(p.attributes);
    let cumulative = 0;
    const out: PromClientValue[] = p.bounds.map((le, i) => {
      cumulative += p.counts[i] ?? 0;
      return { value: cumulative, labels: { ...labels, le: String(le) }, metricName: `${name}_bucket` };
    });
    out.push({ value: p.count, labels: { ...labels, le: "+Inf" }, metricName: `${name}_bucket` });
    out.push({ value: p.sum, labels, metricName: `${name}_sum` });
    out.push({ value: p.count, labels, metricName: `${name}_count` });
    return out;
  });
}

/**
 * The source's families as prom-client metrics: `for (const m of promClientMetrics(src)) register.registerMetric(m)`.
 * Each scrape reads the source again; `reset()` does nothing (the counters belong to the library).
 */
export function promClientMetrics(source: MetricSource): PromClientMetric[] {
  return source().map((first) => {
    const name = prometheusName(first);
    const help = first.description;
    const type = first.kind;
    return {
      name,
      help,
      type,
      aggregator: "sum" as const,
      async get() {
        const now = source().find((f) => f.name === first.name);
        return { name, help, type, aggregator: "sum" as const, values: now ? values(now, name) : [] };
      },
      reset() {},
    };
  });
}

/** What `registerPromClient` needs of a prom-client `Registry` (its `registerMetric` takes prom-client's own classes). */
export interface PromClientRegistry {
  registerMetric(metric: never): void;
}

/** Registers the source's families in a prom-client registry (e.g. `register`, its default one). */
export function registerPromClient(registry: PromClientRegistry, source: MetricSource): void {
  for (const m of promClientMetrics(source)) registry.registerMetric(m as never);
}
