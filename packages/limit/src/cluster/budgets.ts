import type { Decision, RateHeaders } from "./decision.js";
import { UNLIMITED } from "./decision.js";
import { InvalidCostError } from "./errors.js";

/** One budget of a multi-budget decision: a subject and the units this request costs in it. */
export interface Budget {
  subject: string;
  /** Units (default 1): requests for a requests-per-minute budget, tokens for a tokens-per-minute one. */
  cost?: number;
}

/** `checkAll` was given something other than a list of `{ subject, cost? }`; `field` names the bad part. */
export class InvalidBudgetsError extends TypeError {
  override readonly name = "InvalidBudgetsError";
  constructor(
    readonly field: string,
    got: unknown,
  ) {
    super(`checkAll: ${field} must be ${field === "budgets" ? "an array" : "a string"}, got ${typeof got}`);
  }
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
  if (!Array.isArray(budgets)) throw new InvalidBudgetsError("budgets", budgets);
  budgets.forEach((b: Budget | null | undefined, i) => {
    if (typeof b?.subject !== "string") throw new InvalidBudgetsError(`budgets[${i}].subject`, b?.subject);
    const cost = b.cost ?? 1;
    if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidCostError(cost);
  });
  const taken: Array<{ subject: string; cost: number; at: number }> = [];
  let answer: Decision = UNLIMITED;
  let tightest = Number.POSITIVE_INFINITY;
  for (const b of budgets) {
    const cost = b.cost ?? 1;
    const at = limiter.storeTime();
    const d = limiter.tryCheck(b.subject, cost) ?? (await limiter.check(b.subject, cost));
    if (d.kind === "deny") {
      for (const t of taken) limiter.settle(t.subject, -t.cost, t.at);
      return d;
    }
    if (d.kind !== "allow") continue;
    taken.push({ subject: b.subject, cost, at });
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
