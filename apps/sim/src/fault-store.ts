import type { Clock, RoundReply, RoundRequest, Store } from "@resil/limit";
import type { SeededRandom } from "@resil/limit/testing";
import type { FaultTimeline } from "./faults.js";

/** The store is down (an outage on the fault timeline). */
export class StoreDownError extends Error {
  override name = "StoreDownError";
}

export interface FaultStoreOptions {
  timeline: FaultTimeline;
  /** Clock reading at t = 0 of the run. */
  startMs: number;
  latencyMs: number;
  jitterMs: number;
  /** Draws the jitter; seeded, so latencies repeat run to run. */
  rng: SeededRandom;
}

/**
 * Wraps the real store with what the scenario's timeline says: round-trip latency and jitter, slow
 * periods and outages, all on the simulation clock. It also counts round trips per replica and the
 * hits a replica pushes on its first good round after failures (fail-static and overrun admits paid back).
 */
export class FaultStore implements Store {
  /** Round trips attempted, failed ones included. */
  calls = 0;
  failed = 0;
  /** Units pushed by replicas on their first successful round after a failure. */
  paidBack = 0;
  /** Round trips not answered yet (the simulation lets them land before it moves on). */
  inflight = 0;
  /** When true, no latency (the warm-up before t = 0). */
  instant = false;
  private readonly callsByPod = new Map<string, number>();
  private readonly owing = new Set<string>();

  constructor(
    private readonly inner: Store,
    private readonly clock: Clock,
    private readonly opts: FaultStoreOptions,
  ) {}

  round(request: RoundRequest): Promise<RoundReply> {
    this.inflight++;
    const reply = this.roundTrip(request);
    reply.then(this.landed, this.landed);
    return reply;
  }

  private readonly landed = (): void => {
    this.inflight--;
  };

  private roundTrip(request: RoundRequest): Promise<RoundReply> {
    const t = this.clock.monoMs() - this.opts.startMs;
    const pod = podOf(request);
    this.calls++;
    if (pod !== undefined) this.callsByPod.set(pod, (this.callsByPod.get(pod) ?? 0) + 1);
    if (this.opts.timeline.storeDown(t)) {
      this.failed++;
      if (pod !== undefined) this.owing.add(pod);
      return Promise.reject(new StoreDownError("store unavailable (simulated outage)"));
    }
    const latency = this.instant ? 0 : this.latencyAt(t);
    if (latency <= 0) return this.forward(pod, request);
    // The store works half way through the round trip; the reply lands at the end.
    // Both timers are set at send time, so a step-wise clock cannot stretch the round trip.
    return new Promise<RoundReply>((resolve) => {
      let reply: Promise<RoundReply> | undefined;
      this.clock.setTimer(latency / 2, () => {
        reply = this.forward(pod, request);
      });
      this.clock.setTimer(latency, () => resolve(reply ?? this.forward(pod, request)));
    });
  }

  /** Round trips a replica made. */
  callsOf(pod: string): number {
    return this.callsByPod.get(pod) ?? 0;
  }

  private latencyAt(t: number): number {
    const jitter = this.opts.jitterMs > 0 ? this.opts.rng.next() * this.opts.jitterMs : 0;
    return this.opts.latencyMs + jitter + this.opts.timeline.extraLatency(t);
  }

  private async forward(pod: string | undefined, request: RoundRequest): Promise<RoundReply> {
    const reply = await this.inner.round(request);
    if (pod !== undefined && this.owing.delete(pod))
      for (const r of request.rates) this.paidBack += r.hits + r.hitsOld;
    return reply;
  }
}

function podOf(r: RoundRequest): string | undefined {
  return r.heartbeat?.pod ?? r.rates[0]?.pod ?? r.concurrency[0]?.pod ?? r.releases[0]?.pod;
}
