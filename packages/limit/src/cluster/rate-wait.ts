import { ALLOW_SYNC, type Decision } from "./decision.js";
import { LimiterClosedError } from "./errors.js";
import type { RateAdmission, RateAdmissionDeps } from "./rate-admission.js";
import type { RateKeyState } from "./rate-key.js";
import { startWait, type WaitEnd, type WaitHooks } from "./sync-wait.js";
import { DeadlineCall } from "./wait-deadlines.js";
import { outageCountsAt, waitsOnLateStore, waitsOnOwnRound } from "./wait-on.js";

/** A rate check waiting on its key's sync replies, as one object with the promise it settles. */
export class RateWait implements WaitHooks<Decision>, WaitEnd<Decision> {
  private readonly started: number;
  // each way of waiting on is taken once: for a late store's reply, for the key's own late round, for
  // an outage to count
  private waitedLate = false;
  private waitedOwnRound = false;
  private waitedOutage = false;

  constructor(
    private readonly deps: RateAdmissionDeps,
    private readonly admission: RateAdmission,
    private readonly k: RateKeyState,
    private readonly cost: number,
    private readonly resolve: (d: Decision) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.started = deps.clock.monoMs();
  }

  attempt(): Decision | undefined {
    return this.deps.admit(this.k, this.cost, ALLOW_SYNC);
  }

  kick(): void {
    void this.deps.exchange.syncAlone(this.k);
  }

  closed(): boolean {
    return this.deps.closed();
  }

  storeFailing(): boolean {
    return this.deps.env.health.failing;
  }

  // enough units came, yet spending failed: their trust or their window ended before the read
  lapsedOnArrival(): boolean {
    return this.k.unused() >= this.cost;
  }

  // an ask now reaches the store half a round trip later: worth it only if a unit frees by then
  paced(): boolean {
    return this.k.exhaustedUntil - this.deps.clock.monoMs() > this.deps.env.health.rttMs / 2;
  }

  ended(result: Decision | undefined, timedOut: boolean): void {
    const { k, admission } = this;
    try {
      if (
        result === undefined &&
        timedOut &&
        !this.waitedLate &&
        waitsOnLateStore(this.deps.env.health, k, this.deps.clock.monoMs(), this.started)
      ) {
        // far below its limit on a late store: waits on for a reply, or until the store counts as stalled
        this.waitedLate = true;
        const now = this.deps.clock.monoMs();
        const left = this.deps.env.health.stallCountsAt(k.policy.cacheTtlMs, now) - now;
        startWait(this.deps.deadlines, k, this.cost, left, left, "check", this);
        return;
      }
      if (
        result === undefined &&
        timedOut &&
        this.waitedLate &&
        !this.waitedOwnRound &&
        waitsOnOwnRound(this.deps.env.health, k, this.deps.clock.monoMs())
      ) {
        // the store answers the other rounds, so it never counts as stalled: this key's round decides
        this.waitedOwnRound = true;
        const left = this.deps.env.options.roundTimeoutMs;
        startWait(this.deps.deadlines, k, this.cost, left, left, "check", this);
        return;
      }
      const until =
        result === undefined && !this.waitedOutage
          ? outageCountsAt(this.deps.env.health, k, this.cost, this.deps.clock.monoMs())
          : undefined;
      if (until !== undefined) {
        // far below its limit on a failing store: decided once the outage counts (fail-static)
        this.waitedOutage = true;
        this.deps.deadlines.add(new DeadlineCall(until, (now) => this.outageCounted(now)));
        return;
      }
      this.resolve(admission.afterWait(k, this.cost, result, timedOut));
    } catch (error) {
      this.reject(error);
    }
  }

  /**
   * The outage counts at `now` (its deadline's time, which the clock may not read yet), or the store
   * answered again: one more wait on it, then decided.
   */
  outageCounted(now: number): void {
    const { k, deps } = this;
    try {
      if (deps.closed()) throw new LimiterClosedError("check");
      // still failing: decided now, once (a store that answered meanwhile and failed again has a
      // later outage, and waiting for it could go on as long as the store flaps)
      if (deps.env.health.failing) {
        this.resolve(this.admission.afterWait(k, this.cost, undefined, true, now));
        return;
      }
      const budget = deps.env.health.waitBudgetMs(k.policy);
      startWait(deps.deadlines, k, this.cost, budget, budget, "check", this);
    } catch (error) {
      this.reject(error);
    }
  }

  failed(error: unknown): void {
    this.reject(error);
  }
}
