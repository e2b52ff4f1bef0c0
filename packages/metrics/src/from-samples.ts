import { ATTRIBUTES, CATALOG, type CatalogEntry } from "./catalog.js";
import type { Attributes, HistogramPoint, MetricFamily, MetricSource, Point } from "./model.js";

/** One Prometheus-style sample, as `metrics().samples` of every resil package holds them. */
export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** Anything of resil with a `metrics()` snapshot: a Limiter, Breakers, TwoTier, ResilientCaller, RetryRecorder. */
export interface MetricsTarget {
  metrics(): { samples: readonly Sample[] };
}

export interface ResilMetricsOptions {
  /** Extra attributes on every point, e.g. `{ "service.instance.id": podId }`. */
  attributes?: Attributes;
}

const HISTOGRAM_PART = /_(bucket|sum|count)$/;

function attributesOf(labels: Readonly<Record<string, string>>, extra: Attributes | undefined): Attributes {
  const out: Record<string, string> = { ...extra };
  for (const [k, v] of Object.entries(labels)) if (k !== "le") out[ATTRIBUTES[k] ?? `resil.${k}`] = v;
  return out;
}

const keyOf = (a: Attributes) => JSON.stringify(Object.entries(a).sort(([x], [y]) => (x < y ? -1 : 1)));

class FamilyBuilder {
  private readonly points = new Map<string, Point>();
  private readonly histograms = new Map<string, HistogramPoint & { buckets: Map<number, number> }>();

  constructor(readonly entry: CatalogEntry) {}

  add(sampleName: string, labels: Readonly<Record<string, string>>, value: number, extra?: Attributes): void {
    const attributes = attributesOf(labels, extra);
    const key = keyOf(attributes);
    if (this.entry.kind !== "histogram") {
      const p = this.points.get(key);
      if (p) p.value += value;
      else this.points.set(key, { attributes, value });
      return;
    }
    let h = this.histograms.get(key);
    if (!h) {
      h = { attributes, bounds: [], counts: [], sum: 0, count: 0, buckets: new Map() };
      this.histograms.set(key, h);
    }
    const part = HISTOGRAM_PART.exec(sampleName)?.[1];
    if (part === "sum") h.sum = value;
    else if (part === "count") h.count = value;
    else if (part === "bucket" && labels.le !== undefined && labels.le !== "+Inf")
      h.buckets.set(Number(labels.le), value);
  }

  build(): MetricFamily {
    const { name, unit, description } = this.entry;
    if (this.entry.kind !== "histogram")
      return { kind: this.entry.kind, name, unit, description, points: [...this.points.values()] };
    const points = [...this.histograms.values()].map(({ attributes, sum, count, buckets }) => {
      const bounds = [...buckets.keys()].sort((a, b) => a - b);
      let below = 0;
      const counts = bounds.map((b) => {
        const cumulative = buckets.get(b)!;
        const n = cumulative - below;
        below = cumulative;
        return n;
      });
      counts.push(count - below);
      return { attributes, bounds, counts, sum, count };
    });
    return { kind: "histogram", name, unit, description, points };
  }
}

/**
 * One source over any number of resil objects: their samples mapped to the model's names, kinds and units
 * (samples of one family from several objects are merged; unknown sample names become gauges).
 */
export function resilMetrics(
  targets: readonly MetricsTarget[],
  options: ResilMetricsOptions = {},
): MetricSource {
  return () => {
    const families = new Map<string, FamilyBuilder>();
    for (const target of targets) {
      for (const s of target.metrics().samples) {
        const base = s.name in CATALOG ? s.name : s.name.replace(HISTOGRAM_PART, "");
        const entry = CATALOG[base] ?? {
          name: s.name,
          kind: "gauge",
          unit: "1",
          description: `${s.name} (not in the catalog)`,
        };
        let f = families.get(entry.name);
        if (!f) {
          f = new FamilyBuilder(entry);
          families.set(entry.name, f);
        }
        f.add(s.name, s.labels, s.value, options.attributes);
      }
    }
    return [...families.values()].map((f) => f.build());
  };
}
