import type { Decision, RateHeaders } from "./decision.js";
import { UNLIMITED } from "./decision.js";
import { InvalidCostError } from "./errors.js";

/** One budget of a multi-budget decision: a subject and the units this request costs in it. */
export interface Budget {
  subject: string;
  /** Units (default 1): requests for a requests-per-minute budget, tokens for a tokens-per-minute one. */
  cost?: number;
}

/** What a multi-budget decision needs of the Limiter. */
export interface BudgetLimiter {
  tryCheck(subject: string, cost?: number): Decision | undefined;
  check(subject: string, cost?: number): Promise<Decision>;
  settle(subject: string, delta: number, takenAt: number): number;
  storeTime(): number;
}

/**
 * Several budgets in one decision, all or nothing (see docs/protocol.md#s2-12): each budget is
 * decided in order (from credit when it can, else on a sync); the first denial undoes the budgets
 * already taken (a refund to the window they were taken in, `settle`) and is the answer. Admitted:
 * the headers of the budget with the least left (relative to its limit); no budget limited:
 * `unlimited`.
 */
export async function checkAll(limiter: BudgetLimiter, budgets: readonly Budget[]): Promise<Decision> {
  for (const b of budgets) {
    const cost = b.cost ?? 1;
    if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidCostError(cost);
  }
  // taken: subject, cost, takenAt triples, flat (made only when a second budget is limited)
  let taken: Array<string | number> | undefined;
  let first: { subject: string; cost: number; at: number } | undefined;
  let answer: Decision = UNLIMITED;
  let tightest = Number.POSITIVE_INFINITY;
  for (const b of budgets) {
    const cost = b.cost ?? 1;
    const at = limiter.storeTime();
    const d = limiter.tryCheck(b.subject, cost) ?? (await limiter.check(b.subject, cost));
    if (d.kind === "deny") {
      if (first !== undefined) limiter.settle(first.subject, -first.cost, first.at);
      if (taken !== undefined)
        for (let i = 0; i < taken.length; i += 3)
          limiter.settle(taken[i] as string, -(taken[i + 1] as number), taken[i + 2] as number);
      return d;
    }
    if (d.kind !== "allow") continue;
    if (first === undefined) first = { subject: b.subject, cost, at };
    else (taken ??= []).push(b.subject, cost, at);
    const left = share(d.headers);
    if (left < tightest) {
      tightest = left;
      answer = d;
    }
  }
  return answer;
}

/** What is left of a budget, as a share of its limit. */
function share(h: RateHeaders): number {
  return h.limit > 0 ? h.remaining / h.limit : 0;
}
