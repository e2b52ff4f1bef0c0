import { type ManualClock, MemoryStore } from "@resil/limit";
import type { Backend } from "../../src/engine.js";
import type { Outcome, QuickVerdict, ReplicaContext, SimReplica, SlotResult } from "../../src/replica.js";
import { primaryLimit, WINDOW_MS } from "../../src/scenario.js";

/**
 * A stand-in for the Limiter: perfect coordination through a shared counter (admits while the
 * cluster's window is under the limit). The fast path refuses to decide at the limit, so denials go
 * through the async `check`. Syncs are heartbeat rounds on the real store (so outages count).
 */
export function idealBackend(): Backend {
  const shared = { window: -1, used: 0, active: 0 };
  return {
    store: (clock: ManualClock) => new MemoryStore(clock),
    replica: (ctx) => new IdealReplica(ctx, shared),
  };
}

class IdealReplica implements SimReplica {
  readonly pod: string;
  private readonly counts = new Map<Outcome, number>();
  private rounds = 0;
  private failures = 0;
  private lastBeat = Number.NEGATIVE_INFINITY;
  private readonly windowMs: number;
  private readonly limit: number;

  constructor(
    private readonly ctx: ReplicaContext,
    private readonly shared: { window: number; used: number; active: number },
  ) {
    this.pod = ctx.pod;
    const p = primaryLimit(ctx.scenario);
    this.windowMs = WINDOW_MS[p.window];
    this.limit = p.limit;
  }

  private roll(): void {
    const w = Math.floor(this.ctx.clock.monoMs() / this.windowMs);
    if (w !== this.shared.window) {
      this.shared.window = w;
      this.shared.used = 0;
    }
  }

  storeTime(): number {
    return this.ctx.clock.unixMs();
  }

  /** Settles against the shared window: a charge counts now, a refund while its window is current. */
  settle(delta: number, takenAt: number): number {
    this.roll();
    if (delta < 0 && Math.floor(takenAt / this.windowMs) !== this.shared.window) return 0;
    this.shared.used = Math.max(0, this.shared.used + delta);
    return delta;
  }

  tryCheck(cost: number): QuickVerdict {
    this.roll();
    if (this.shared.used + cost > this.limit) return "undecided";
    this.shared.used += cost;
    this.bump("allowLocal");
    return "allow";
  }

  async check(cost: number): Promise<boolean> {
    await Promise.resolve();
    this.roll();
    if (this.shared.used + cost > this.limit) {
      this.bump("denySync");
      return false;
    }
    this.shared.used += cost;
    this.bump("allowSync");
    return true;
  }

  wait(cost: number): Promise<boolean> {
    return this.check(cost);
  }

  async acquire(): Promise<SlotResult> {
    const max = this.ctx.scenario.concurrency?.max ?? 0;
    if (this.shared.active >= max) return { kind: "denied" };
    this.shared.active++;
    return { kind: "slot", release: () => this.shared.active-- };
  }

  async start(): Promise<void> {}

  async sync(force: boolean): Promise<void> {
    const now = this.ctx.clock.monoMs();
    if (!force && now - this.lastBeat < 1000) return;
    this.lastBeat = now;
    this.rounds++;
    try {
      await this.ctx.store.round({
        releases: [],
        rates: [],
        concurrency: [],
        heartbeat: { key: "rl2:{sim}:pods", pod: this.pod, windowMs: 3000, leave: false },
      });
    } catch {
      this.failures++;
    }
  }

  outcome(o: Outcome): number {
    return this.counts.get(o) ?? 0;
  }

  syncRounds(): number {
    return this.rounds;
  }

  syncFailures(): number {
    return this.failures;
  }

  replicas(): number {
    return 1;
  }

  private bump(o: Outcome): void {
    this.counts.set(o, (this.counts.get(o) ?? 0) + 1);
  }
}
