/** One exported sample, Prometheus-style (the same shape as @resil/limit's `MetricSample`). */
export interface MetricSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** Breakers' metrics at one moment. */
export interface BreakerMetrics {
  /** Unix ms the snapshot was taken. */
  at: number;
  /**
   * `resil_breaker_transitions_total{tier,to,cause}`, `resil_breaker_refusals_total{tier}`,
   * `resil_breaker_probes_total{tier,outcome}` (granted, released), `resil_breaker_open{tier}`
   * (open or half-open keys now), `resil_breaker_keys{tier}` (entries held).
   */
  samples: MetricSample[];
}

/** Running counters of one tier; the hot path only increments numbers. */
export class BreakerCounters {
  refusals = 0;
  probesGranted = 0;
  probesReleased = 0;
  /** `to:cause` -> count. */
  readonly transitions = new Map<string, number>();

  transition(to: string, cause: string): void {
    const key = `${to}:${cause}`;
    this.transitions.set(key, (this.transitions.get(key) ?? 0) + 1);
  }

  samples(tier: string, open: number, keys: number): MetricSample[] {
    const out: MetricSample[] = [];
    for (const [key, value] of this.transitions) {
      const [to, cause] = key.split(":") as [string, string];
      out.push({ name: "resil_breaker_transitions_total", labels: { tier, to, cause }, value });
    }
    out.push({ name: "resil_breaker_refusals_total", labels: { tier }, value: this.refusals });
    out.push({
      name: "resil_breaker_probes_total",
      labels: { tier, outcome: "granted" },
      value: this.probesGranted,
    });
    out.push({
      name: "resil_breaker_probes_total",
      labels: { tier, outcome: "released" },
      value: this.probesReleased,
    });
    out.push({ name: "resil_breaker_open", labels: { tier }, value: open });
    out.push({ name: "resil_breaker_keys", labels: { tier }, value: keys });
    return out;
  }
}
