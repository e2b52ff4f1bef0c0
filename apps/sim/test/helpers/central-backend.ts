import { type ManualClock, MemoryStore } from "@resil/limit";
import { apply, FIXED_WINDOW, free, SLIDING_WINDOW, TOKEN_BUCKET } from "@resil/limit/store";
import type { Backend } from "../../src/engine.js";
import type { Outcome, QuickVerdict, ReplicaContext, SimReplica, SlotResult } from "../../src/replica.js";
import { primaryLimit, WINDOW_MS } from "../../src/scenario.js";

/**
 * How the central limiter shares units between costs: `greedy` admits any request that fits; `pool`
 * admits a smaller request only beyond `pool` free units, so they stay together for a large one;
 * `capped` admits whatever fits, but cost-1 requests only while their share of the admitted units
 * stays within `ratio` x their share of the offered ones.
 */
export type CentralPolicy =
  | { kind: "greedy" }
  | { kind: "pool"; pool: number }
  | { kind: "capped"; ratio: number };

const ALG = { fixed: FIXED_WINDOW, sliding: SLIDING_WINDOW, token: TOKEN_BUCKET } as const;

/**
 * A reference to measure the Limiter against: one exact window shared by every replica, decided at
 * once on every arrival with no store and no latency (what no distributed limiter can beat). Uses the
 * library's own window maths, so it is the same algorithm the Limiter enforces.
 */
export function centralBackend(policy: CentralPolicy): Backend {
  const shared = { state: { idx: 0, cur: 0, prev: 0, tat: 0 }, offered: [0, 0], admitted: [0, 0] };
  return {
    store: (clock: ManualClock) => new MemoryStore(clock),
    replica: (ctx) => new CentralReplica(ctx, shared, policy),
  };
}

class CentralReplica implements SimReplica {
  readonly pod: string;
  private readonly counts = new Map<Outcome, number>();

  constructor(
    private readonly ctx: ReplicaContext,
    private readonly shared: {
      state: { idx: number; cur: number; prev: number; tat: number };
      offered: number[];
      admitted: number[];
    },
    private readonly policy: CentralPolicy,
  ) {
    this.pod = ctx.pod;
  }

  tryCheck(cost: number): QuickVerdict {
    const s = this.ctx.scenario;
    const l = primaryLimit(s);
    const spec = { limit: l.limit, windowMs: WINDOW_MS[l.window], burst: s.burst ?? l.limit };
    const alg = ALG[s.algorithm];
    const t = this.ctx.clock.unixMs();
    const room = free(alg, spec, this.shared.state, t);
    const keep = this.policy.kind === "pool" && cost < this.policy.pool ? this.policy.pool : 0;
    const small = cost === 1 ? 0 : 1;
    const sh = this.shared;
    sh.offered[small]! += cost;
    let capped = false;
    if (this.policy.kind === "capped" && small === 0) {
      const offShare = sh.offered[0]! / (sh.offered[0]! + sh.offered[1]!);
      const adm = sh.admitted[0]! + sh.admitted[1]! + cost;
      capped = (sh.admitted[0]! + cost) / adm > this.policy.ratio * offShare;
    }
    if (capped || room - keep < cost) {
      this.bump("denyLocal");
      return "deny";
    }
    apply(alg, spec, this.shared.state, t, cost);
    sh.admitted[small]! += cost;
    this.bump("allowLocal");
    return "allow";
  }

  async check(cost: number): Promise<boolean> {
    return this.tryCheck(cost) === "allow";
  }

  wait(cost: number): Promise<boolean> {
    return this.check(cost);
  }

  async acquire(): Promise<SlotResult> {
    return { kind: "nocap" };
  }

  storeTime(): number {
    return this.ctx.clock.unixMs();
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
