import type { Scenario } from "./scenario.js";

/** A crash or a join, at a step (ms from the start). */
export type ReplicaEvent = { kind: "crash"; atMs: number; replica: number } | { kind: "join"; atMs: number };

/** The store faults and replica events of a scenario, in ms from the start of the run. */
export class FaultTimeline {
  private readonly outages: Array<{ from: number; to: number }>;
  private readonly slow: Array<{ from: number; to: number; latencyMs: number }>;
  /** Replica events in time order (a stable sort keeps the file's order on a tie). */
  readonly events: ReplicaEvent[];

  constructor(faults: Scenario["faults"]) {
    this.outages = [];
    this.slow = [];
    const events: ReplicaEvent[] = [];
    for (const f of faults) {
      if (f.type === "outage") this.outages.push({ from: f.from * 1000, to: f.to * 1000 });
      else if (f.type === "slow")
        this.slow.push({ from: f.from * 1000, to: f.to * 1000, latencyMs: f.latencyMs });
      else if (f.type === "crash")
        events.push({ kind: "crash", atMs: Math.round(f.at * 1000), replica: f.replica });
      else events.push({ kind: "join", atMs: Math.round(f.at * 1000) });
    }
    this.events = events.sort((a, b) => a.atMs - b.atMs);
  }

  /** True while the store is down at `tMs`. */
  storeDown(tMs: number): boolean {
    for (const o of this.outages) if (tMs >= o.from && tMs < o.to) return true;
    return false;
  }

  /** Extra latency of a slow-store period at `tMs` (the largest if periods overlap), else 0. */
  extraLatency(tMs: number): number {
    let extra = 0;
    for (const s of this.slow) if (tMs >= s.from && tMs < s.to) extra = Math.max(extra, s.latencyMs);
    return extra;
  }

  /** When the last outage ends (ms), for the summary; undefined without outages. */
  outageEnds(): number[] {
    return this.outages.map((o) => o.to);
  }
}
