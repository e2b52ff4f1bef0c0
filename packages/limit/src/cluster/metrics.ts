/** One exported sample, Prometheus-style: a metric name, its labels and a value. */
export interface MetricSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** A Limiter's metrics at one moment (names of docs/protocol.md#s1-6). */
export interface LimiterMetrics {
  /** Unix ms the snapshot was taken. */
  at: number;
  /**
   * `resil_decisions_total{svc,outcome,mode}` (rate decisions), `resil_slot_decisions_total{svc,outcome,mode}`
   * (acquire), `resil_replicas{svc}`, `resil_slots_active{svc}`, `resil_sync_seconds_bucket{svc,le}` /
   * `_sum` / `_count`, `resil_sync_failures_total{svc}`, `resil_store_failing{svc}`,
   * `resil_store_outages_total{svc}`, `resil_store_recoveries_total{svc}`, `resil_sync_rtt_seconds{svc}`
   * (the measured round trip the waits adapt to); with `perSubject`, also `resil_active{svc,key}`.
   */
  samples: MetricSample[];
}

/** Upper bounds (seconds) of the round-trip histogram. */
export const SYNC_SECONDS_BUCKETS: readonly number[] = Object.freeze([
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
]);

/** Round-trip durations, bucketed. */
export class SyncHistogram {
  readonly counts = new Array<number>(SYNC_SECONDS_BUCKETS.length).fill(0);
  sum = 0;
  total = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.total++;
    for (let i = 0; i < SYNC_SECONDS_BUCKETS.length; i++) {
      if (seconds <= SYNC_SECONDS_BUCKETS[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

const OUTCOME_LABELS: ReadonlyArray<readonly [string, string]> = [
  ["allow", "local"],
  ["allow", "sync"],
  ["allow", "cold"],
  ["allow", "overrun"],
  ["allow", "degraded"],
  ["deny", "local"],
  ["deny", "sync"],
  ["deny", "degraded"],
];

export interface MetricsSource {
  service: string;
  unixMs: number;
  /** Outcome counters in OUTCOMES order. */
  counts: readonly number[];
  /** acquire() outcomes in OUTCOMES order. */
  slotCounts: readonly number[];
  replicas: number;
  perSubject: boolean;
  active: ReadonlyArray<{ subject: string; active: number }>;
  sync: SyncHistogram;
  failures: number;
  store: {
    /** Failing now (a round failed, or one is unanswered past the default cacheTtlMs). */
    failing: boolean;
    /** Times the store turned failing, and recovered. */
    outages: number;
    recoveries: number;
    /** Measured round trip, ms. */
    rttMs: number;
  };
}

export function snapshotMetrics(src: MetricsSource): LimiterMetrics {
  const svc = src.service;
  const samples: MetricSample[] = [];
  OUTCOME_LABELS.forEach(([outcome, mode], i) => {
    samples.push({
      name: "resil_decisions_total",
      labels: { svc, outcome, mode },
      value: src.counts[i] ?? 0,
    });
  });
  OUTCOME_LABELS.forEach(([outcome, mode], i) => {
    samples.push({
      name: "resil_slot_decisions_total",
      labels: { svc, outcome, mode },
      value: src.slotCounts[i] ?? 0,
    });
  });
  samples.push({ name: "resil_replicas", labels: { svc }, value: src.replicas });
  let held = 0;
  for (const a of src.active) held += a.active;
  samples.push({ name: "resil_slots_active", labels: { svc }, value: held });
  if (src.perSubject) {
    for (const a of src.active)
      samples.push({ name: "resil_active", labels: { svc, key: a.subject }, value: a.active });
  }
  let cumulative = 0;
  SYNC_SECONDS_BUCKETS.forEach((le, i) => {
    cumulative += src.sync.counts[i] ?? 0;
    samples.push({ name: "resil_sync_seconds_bucket", labels: { svc, le: String(le) }, value: cumulative });
  });
  samples.push({ name: "resil_sync_seconds_bucket", labels: { svc, le: "+Inf" }, value: src.sync.total });
  samples.push({ name: "resil_sync_seconds_sum", labels: { svc }, value: src.sync.sum });
  samples.push({ name: "resil_sync_seconds_count", labels: { svc }, value: src.sync.total });
  samples.push({ name: "resil_sync_failures_total", labels: { svc }, value: src.failures });
  samples.push({ name: "resil_store_failing", labels: { svc }, value: src.store.failing ? 1 : 0 });
  samples.push({ name: "resil_store_outages_total", labels: { svc }, value: src.store.outages });
  samples.push({ name: "resil_store_recoveries_total", labels: { svc }, value: src.store.recoveries });
  samples.push({ name: "resil_sync_rtt_seconds", labels: { svc }, value: src.store.rttMs / 1000 });
  return { at: src.unixMs, samples };
}

/** HELP text and TYPE of each family the Limiter writes. */
export const LIMITER_FAMILIES: Readonly<
  Record<string, { type: "counter" | "gauge" | "histogram"; help: string }>
> = {
  resil_decisions_total: {
    type: "counter",
    help: "Rate decisions (check, tryCheck, tryAdmit) by outcome and how they were reached",
  },
  resil_slot_decisions_total: {
    type: "counter",
    help: "Concurrency decisions (acquire) by outcome and how they were reached",
  },
  resil_replicas: { type: "gauge", help: "Live replicas of the service at the last heartbeat" },
  resil_store_failing: {
    type: "gauge",
    help: "1 while the store is failing (decisions are fail-static), else 0",
  },
  resil_slots_active: { type: "gauge", help: "Concurrency slots held on this replica" },
  resil_active: { type: "gauge", help: "Concurrency slots held on this replica, per subject" },
  resil_sync_seconds: { type: "histogram", help: "Round trip of one sync round to the store, in seconds" },
  resil_store_outages_total: { type: "counter", help: "Times the store turned failing" },
  resil_store_recoveries_total: { type: "counter", help: "Times the store recovered after failing" },
  resil_sync_rtt_seconds: {
    type: "gauge",
    help: "Measured round trip to the store, in seconds (the sync waits adapt to it)",
  },
  resil_sync_failures_total: {
    type: "counter",
    help: "Sync rounds that failed (store error, timeout, malformed reply)",
  },
};

const HISTOGRAM_PART = /_(bucket|sum|count)$/;

/** Renders samples in the Prometheus text exposition format, with `# HELP` and `# TYPE` before each family. */
export function formatPrometheus(metrics: LimiterMetrics): string {
  const quote = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  let out = "";
  let family = "";
  for (const s of metrics.samples) {
    const base = s.name in LIMITER_FAMILIES ? s.name : s.name.replace(HISTOGRAM_PART, "");
    const meta = LIMITER_FAMILIES[base];
    if (base !== family && meta) {
      family = base;
      out += `# HELP ${base} ${meta.help}\n# TYPE ${base} ${meta.type}\n`;
    }
    const labels = Object.entries(s.labels)
      .map(([k, v]) => `${k}="${quote(v)}"`)
      .join(",");
    out += `${s.name}{${labels}} ${s.value}\n`;
  }
  return out;
}
