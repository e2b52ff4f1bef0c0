/** Label values of one point: a small, bounded set per metric (never one per subject unless asked). */
export type Attributes = Readonly<Record<string, string>>;

/** A counter's or gauge's value for one combination of attributes. */
export interface Point {
  attributes: Attributes;
  value: number;
}

/** A histogram for one combination of attributes; `counts[i]` falls in (bounds[i-1], bounds[i]], the last past every bound. */
export interface HistogramPoint {
  attributes: Attributes;
  bounds: readonly number[];
  counts: readonly number[];
  sum: number;
  count: number;
}

interface FamilyBase {
  /** OpenTelemetry-style dotted name, e.g. `resil.limiter.decisions`. */
  name: string;
  description: string;
  /** UCUM unit: `s`, `{decision}`, `{replica}`, ... */
  unit: string;
}

/** One metric and its points, as read at one moment. */
export type MetricFamily =
  | (FamilyBase & { kind: "counter"; points: readonly Point[] })
  | (FamilyBase & { kind: "gauge"; points: readonly Point[] })
  | (FamilyBase & { kind: "histogram"; points: readonly HistogramPoint[] });

/** Reads the current families; called on every scrape or collection, so it must be cheap and never throw. */
export type MetricSource = () => readonly MetricFamily[];

/** Several sources read as one (a limiter, its breakers, its retries...). */
export function combine(...sources: readonly MetricSource[]): MetricSource {
  return () => sources.flatMap((s) => s());
}
