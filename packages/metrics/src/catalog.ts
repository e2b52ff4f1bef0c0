/** How one Prometheus-style sample name of a resil package maps into the model. */
export interface CatalogEntry {
  /** OpenTelemetry-style name. */
  name: string;
  kind: "counter" | "gauge" | "histogram";
  unit: string;
  description: string;
}

/** Sample labels and the attribute names they become (OpenTelemetry style, namespaced). */
export const ATTRIBUTES: Readonly<Record<string, string>> = {
  svc: "resil.service",
  outcome: "resil.outcome",
  mode: "resil.mode",
  key: "resil.subject",
  tier: "resil.breaker.tier",
  to: "resil.breaker.state",
  cause: "resil.breaker.cause",
  result: "resil.result",
  stop: "resil.retry.stop",
};

/** Every sample name the packages write today: `@resil/limit`, `@resil/breaker`, `@resil/fallback`, and the retry recorder. */
export const CATALOG: Readonly<Record<string, CatalogEntry>> = {
  resil_decisions_total: {
    name: "resil.limiter.decisions",
    kind: "counter",
    unit: "{decision}",
    description: "Rate decisions (check, tryCheck, tryAdmit) by outcome and how they were reached",
  },
  resil_slot_decisions_total: {
    name: "resil.limiter.slot.decisions",
    kind: "counter",
    unit: "{decision}",
    description: "Concurrency decisions (acquire) by outcome and how they were reached",
  },
  resil_replicas: {
    name: "resil.limiter.replicas",
    kind: "gauge",
    unit: "{replica}",
    description: "Live replicas of the service at the last heartbeat",
  },
  resil_store_failing: {
    name: "resil.limiter.store.failing",
    kind: "gauge",
    unit: "1",
    description: "1 while the limiter's store is failing (decisions are fail-static), else 0",
  },
  resil_store_outages_total: {
    name: "resil.limiter.store.outages",
    kind: "counter",
    unit: "{outage}",
    description: "Times the limiter's store turned failing",
  },
  resil_store_recoveries_total: {
    name: "resil.limiter.store.recoveries",
    kind: "counter",
    unit: "{recovery}",
    description: "Times the limiter's store recovered after failing",
  },
  resil_sync_rtt_seconds: {
    name: "resil.limiter.sync.rtt",
    kind: "gauge",
    unit: "s",
    description: "Measured round trip to the store (the sync waits adapt to it)",
  },
  resil_slots_active: {
    name: "resil.limiter.slots.active",
    kind: "gauge",
    unit: "{slot}",
    description: "Concurrency slots held on this replica",
  },
  resil_active: {
    name: "resil.limiter.subject.slots.active",
    kind: "gauge",
    unit: "{slot}",
    description: "Concurrency slots held on this replica, per subject (only when asked for)",
  },
  resil_sync_seconds: {
    name: "resil.limiter.sync.duration",
    kind: "histogram",
    unit: "s",
    description: "Round trip of one sync round to the store",
  },
  resil_sync_failures_total: {
    name: "resil.limiter.sync.failures",
    kind: "counter",
    unit: "{round}",
    description: "Sync rounds that failed (store error, timeout, malformed reply)",
  },
  resil_breaker_transitions_total: {
    name: "resil.breaker.transitions",
    kind: "counter",
    unit: "{transition}",
    description: "Breaker state changes by tier, new state and cause",
  },
  resil_breaker_refusals_total: {
    name: "resil.breaker.refusals",
    kind: "counter",
    unit: "{call}",
    description: "Calls refused by an open or probing breaker",
  },
  resil_breaker_probes_total: {
    name: "resil.breaker.probes",
    kind: "counter",
    unit: "{probe}",
    description: "Half-open probes granted, and given back unused",
  },
  resil_breaker_open: {
    name: "resil.breaker.open",
    kind: "gauge",
    unit: "{breaker}",
    description: "Breakers not closed (open or half-open)",
  },
  resil_breaker_keys: {
    name: "resil.breaker.keys",
    kind: "gauge",
    unit: "{breaker}",
    description: "Breakers kept in memory",
  },
  resil_calls_total: {
    name: "resil.call.calls",
    kind: "counter",
    unit: "{call}",
    description: "Composed calls (ResilientCaller) by result",
  },
  resil_call_fallbacks_total: {
    name: "resil.call.fallbacks",
    kind: "counter",
    unit: "{call}",
    description: "Composed calls served by a candidate after the first",
  },
  resil_call_hops_total: {
    name: "resil.call.hops",
    kind: "counter",
    unit: "{hop}",
    description: "Fallback hops by outcome",
  },
  resil_call_attempts_total: {
    name: "resil.call.attempts",
    kind: "counter",
    unit: "{attempt}",
    description: "Attempts sent upstream by outcome",
  },
  resil_call_retries_total: {
    name: "resil.call.retries",
    kind: "counter",
    unit: "{retry}",
    description: "Retries inside hops",
  },
  resil_retry_retries_total: {
    name: "resil.retry.retries",
    kind: "counter",
    unit: "{retry}",
    description: "Retries scheduled by retry()",
  },
  resil_retry_give_ups_total: {
    name: "resil.retry.give_ups",
    kind: "counter",
    unit: "{call}",
    description: "retry() calls that ended without success, by why they stopped",
  },
};
