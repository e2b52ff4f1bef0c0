import {
  type AcquireResult,
  Limiter,
  type LimiterOptions,
  MemoryStore,
  Pacer,
  type RateLimitConfig,
  WaitTimeoutError,
} from "@resil/limit";
import type { Backend } from "./engine.js";
import type { Outcome, QuickVerdict, ReplicaContext, SimReplica, SlotResult } from "./replica.js";
import type { Scenario } from "./scenario.js";

/** The one limiter key every simulated request uses. */
export const SUBJECT = "tenant";

const ALGORITHMS = { fixed: "fixed_window", sliding: "sliding_window", token: "token_bucket" } as const;
const WINDOW_FIELD = {
  second: "requestsPerSecond",
  minute: "requestsPerMinute",
  hour: "requestsPerHour",
} as const;

/** The real thing: `Limiter` replicas (service "sim", pods "pod-i") on one `MemoryStore`. */
export const limiterBackend: Backend = {
  store: (clock) => new MemoryStore(clock),
  replica: (ctx) => new LimiterReplica(ctx),
};

/** The scenario's limits and tuning as the Limiter's per-key config. */
export function rateConfig(s: Scenario): RateLimitConfig {
  const cfg: RateLimitConfig = {
    algorithm: ALGORITHMS[s.algorithm],
    burstSize: s.burst ?? null,
    localAllowance: s.limiter.localAllowance,
    syncIntervalMs: s.limiter.syncIntervalMs,
    cacheTtlMs: s.limiter.cacheTtlMs,
    redisTimeoutMs: s.limiter.redisTimeoutMs,
  };
  for (const l of s.limits) cfg[WINDOW_FIELD[l.window]] = l.limit;
  return cfg;
}

class LimiterReplica implements SimReplica {
  readonly pod: string;
  private readonly limiter: Limiter;
  private readonly pacer: Pacer | undefined;

  constructor(ctx: ReplicaContext) {
    const s = ctx.scenario;
    const o = s.limiter;
    this.pod = ctx.pod;
    this.limiter = new Limiter(simLimiterOptions(o, ctx.pod), ctx.store, ctx.clock);
    if (s.wait) this.pacer = new Pacer(this.limiter, s.wait, ctx.clock);
    // The background loop starts only with the loop driver; the steps driver runs the rounds itself (@resil/limit docs/protocol.md#s6).
    this.limiter.setPolicy(SUBJECT, rateConfig(s), s.concurrency?.max ?? null);
  }

  tryCheck(cost: number): QuickVerdict {
    const d = this.limiter.tryCheck(SUBJECT, cost);
    if (d === undefined) return "undecided";
    return d.kind === "deny" ? "deny" : "allow";
  }

  async check(cost: number): Promise<boolean> {
    return (await this.limiter.check(SUBJECT, cost)).kind !== "deny";
  }

  async wait(cost: number): Promise<boolean> {
    if (this.pacer === undefined) return this.check(cost);
    try {
      await this.pacer.wait(SUBJECT, { cost });
      return true;
    } catch (err) {
      if (err instanceof WaitTimeoutError) return false;
      throw err;
    }
  }

  async acquire(): Promise<SlotResult> {
    const r: AcquireResult = await this.limiter.acquire(SUBJECT);
    if (r.kind === "acquired") return { kind: "slot", release: () => r.slot.release() };
    return r.kind === "denied" ? { kind: "denied" } : { kind: "nocap" };
  }

  storeTime(): number {
    return this.limiter.storeTime();
  }

  settle(delta: number, takenAt: number): number {
    return this.limiter.settle(SUBJECT, delta, takenAt);
  }

  start(): Promise<void> {
    return this.limiter.start();
  }

  sync(force: boolean): Promise<void> {
    return this.limiter.syncNow(force);
  }

  outcome(o: Outcome): number {
    return this.limiter.outcomeCount(o);
  }

  syncRounds(): number {
    return this.limiter.syncRounds();
  }

  syncFailures(): number {
    return this.limiter.syncFailures();
  }

  replicas(): number {
    return this.limiter.replicas();
  }
}

/** The limiter options a simulated replica runs with: the scenario's tuning, service "sim". */
export function simLimiterOptions(o: Scenario["limiter"], podId: string): LimiterOptions {
  return {
    service: "sim",
    podId,
    onStoreUnavailable: o.onStoreUnavailable,
    lastMile: o.lastMile,
    heartbeatMs: o.heartbeatMs,
    slowSyncMs: o.slowSyncMs,
    leaseTtlMs: o.leaseTtlMs,
    roundTimeoutMs: o.roundTimeoutMs,
    tickMs: o.tickMs,
    maxKeysPerRound: o.maxKeysPerRound,
  };
}
