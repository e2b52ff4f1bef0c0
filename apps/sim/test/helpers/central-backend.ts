import { type AlgorithmCode, type ManualClock, MemoryStore, type Timer } from "@resil/limit";
import { apply, FIXED_WINDOW, free, SLIDING_WINDOW, TOKEN_BUCKET } from "@resil/limit/store";
import type { Backend } from "../../src/engine.js";
import type { Outcome, QuickVerdict, SimReplica, SlotResult } from "../../src/replica.js";
import { primaryLimit, type Scenario, WINDOW_MS } from "../../src/scenario.js";

/**
 * How the central limiter shares units between costs: `greedy` admits any request that fits; `pool`
 * admits a smaller request only beyond `pool` free units, so they stay together for a large one,
 * except in each window's last `releaseMs` (default 0);
 * `capped` admits whatever fits, but cost-1 requests only while their share of the admitted units
 * stays within `ratio` x their share of the offered ones. With `--wait`, waiters queue in one FIFO
 * per cost (the largest served first) and are retried every ms.
 */
export type CentralPolicy =
  | { kind: "greedy" }
  | { kind: "pool"; pool: number; releaseMs?: number }
  | { kind: "capped"; ratio: number };

const ALG = { fixed: FIXED_WINDOW, sliding: SLIDING_WINDOW, token: TOKEN_BUCKET } as const;

interface Waiter {
  cost: number;
  deadline: number;
  resolve(ok: boolean): void;
}

/**
 * A reference to measure the Limiter against: one exact window shared by every replica, deciding
 * every arrival at once with no store and no latency (what no distributed limiter can beat). Uses
 * the library's own window maths, so it is the same algorithm the Limiter enforces.
 */
export function centralBackend(policy: CentralPolicy): Backend {
  let central: Central | undefined;
  return {
    // a new run starts with a new store: its central limiter is built with the run's first replica
    store: (clock: ManualClock) => {
      central = undefined;
      return new MemoryStore(clock);
    },
    replica: (ctx) => {
      central ??= new Central(ctx.scenario, ctx.clock, policy);
      return new CentralReplica(ctx.pod, central);
    },
  };
}

class Central {
  private readonly state = { idx: 0, cur: 0, prev: 0, tat: 0 };
  private readonly spec: { limit: number; windowMs: number; burst: number };
  private readonly alg: AlgorithmCode;
  // [cost 1, larger costs]
  private readonly offered = [0, 0];
  private readonly admitted = [0, 0];
  private readonly queues = new Map<number, Waiter[]>();
  private retry: Timer | undefined;

  constructor(
    private readonly s: Scenario,
    private readonly clock: ManualClock,
    private readonly policy: CentralPolicy,
  ) {
    const l = primaryLimit(s);
    this.spec = { limit: l.limit, windowMs: WINDOW_MS[l.window], burst: s.burst ?? l.limit };
    this.alg = ALG[s.algorithm];
  }

  offer(cost: number): void {
    this.offered[cost === 1 ? 0 : 1]! += cost;
  }

  /** Admits `cost` now when it fits and the policy allows it. */
  take(cost: number): boolean {
    const t = this.clock.unixMs();
    const p = this.policy;
    const late = p.kind === "pool" && t % this.spec.windowMs >= this.spec.windowMs - (p.releaseMs ?? 0);
    const keep = p.kind === "pool" && cost < p.pool && !late ? p.pool : 0;
    if (free(this.alg, this.spec, this.state, t) - keep < cost || this.capped(cost)) return false;
    apply(this.alg, this.spec, this.state, t, cost);
    this.admitted[cost === 1 ? 0 : 1]! += cost;
    return true;
  }

  wait(cost: number): Promise<boolean> {
    const queue = this.queues.get(cost) ?? [];
    this.queues.set(cost, queue);
    if (queue.length === 0 && this.take(cost)) return Promise.resolve(true);
    const maxWaitMs = this.s.wait?.maxWaitMs ?? 0;
    return new Promise<boolean>((resolve) => {
      queue.push({ cost, deadline: this.clock.monoMs() + maxWaitMs, resolve });
      this.retry ??= this.clock.setTimer(1, () => this.drain());
    });
  }

  private capped(cost: number): boolean {
    if (this.policy.kind !== "capped" || cost !== 1) return false;
    const [o1, o2] = this.offered as [number, number];
    const [a1, a2] = this.admitted as [number, number];
    return (a1 + cost) / (a1 + a2 + cost) > (this.policy.ratio * o1) / (o1 + o2);
  }

  private drain(): void {
    this.retry = undefined;
    const now = this.clock.monoMs();
    const costs = [...this.queues.keys()].sort((a, b) => b - a);
    let waiting = 0;
    for (const cost of costs) {
      const q = this.queues.get(cost)!;
      while (q.length > 0 && (q[0]!.deadline <= now || this.take(cost))) {
        const w = q.shift()!;
        w.resolve(w.deadline > now);
      }
      waiting += q.length;
    }
    if (waiting > 0) this.retry = this.clock.setTimer(1, () => this.drain());
  }
}

class CentralReplica implements SimReplica {
  private readonly counts = new Map<Outcome, number>();

  constructor(
    readonly pod: string,
    private readonly central: Central,
  ) {}

  tryCheck(cost: number): QuickVerdict {
    this.central.offer(cost);
    const ok = this.central.take(cost);
    this.bump(ok ? "allowLocal" : "denyLocal");
    return ok ? "allow" : "deny";
  }

  async check(cost: number): Promise<boolean> {
    return this.tryCheck(cost) === "allow";
  }

  wait(cost: number): Promise<boolean> {
    this.central.offer(cost);
    return this.central.wait(cost);
  }

  async acquire(): Promise<SlotResult> {
    return { kind: "nocap" };
  }

  storeTime(): number {
    return 0;
  }

  settle(): number {
    return 0;
  }

  async start(): Promise<void> {}

  async sync(): Promise<void> {}

  outcome(o: Outcome): number {
    return this.counts.get(o) ?? 0;
  }

  syncRounds(): number {
    return 0;
  }

  syncFailures(): number {
    return 0;
  }

  replicas(): number {
    return 1;
  }

  private bump(o: Outcome): void {
    this.counts.set(o, (this.counts.get(o) ?? 0) + 1);
  }
}
