import type { Clock, Timer } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { CostShares, placeByCost } from "./cost-shares.js";
import type { Decision } from "./decision.js";
import { InvalidCostError } from "./errors.js";
import {
  CostExceedsLimitError,
  PACER_DEFAULTS,
  type PacedLimiter,
  type PacerOptions,
  positive,
  type WaitOptions,
  WaitTimeoutError,
} from "./pacer-options.js";
import { type UpstreamBudgetLike, UpstreamHolds } from "./upstream-hold.js";

export {
  CostExceedsLimitError,
  PACER_DEFAULTS,
  type PacedLimiter,
  type PacerOptions,
  type WaitOptions,
  WaitTimeoutError,
} from "./pacer-options.js";

interface Waiter {
  cost: number;
  resolve(): void;
  reject(reason: unknown): void;
  timer: Timer | undefined;
  detach(): void;
}

interface Queue {
  waiters: Waiter[];
  poll: Timer | undefined;
  asking: boolean;
}

/**
 * Waits for capacity of the cluster-wide limit instead of being denied: one queue per subject on this
 * replica, largest cost first and FIFO within a cost (a big request at the head is not overtaken by
 * small ones), abortable. One-unit waiters are held back past their share of the offered units while
 * larger ones are admitted (cost-shares.ts). Only the head of a queue asks the limiter (`tryCheck`,
 * from local credit); `check`, and so a sync, only when the key's credit is undecided: waiters cost no
 * store traffic of their own.
 */
export class Pacer {
  private readonly pollMs: number;
  private readonly maxWaitMs: number;
  private readonly queues = new Map<string, Queue>();
  private readonly holds = new UpstreamHolds();
  private readonly shares = new Map<string, CostShares>();

  constructor(
    private readonly limiter: PacedLimiter,
    options: PacerOptions = {},
    private readonly clock: Clock = coarseClock,
  ) {
    this.pollMs = positive("pollMs", options.pollMs, PACER_DEFAULTS.pollMs);
    this.maxWaitMs = positive("maxWaitMs", options.maxWaitMs, PACER_DEFAULTS.maxWaitMs);
  }

  /** Resolves once `cost` units of `subject` are admitted; largest first, then FIFO, among this replica's waiters of the subject. */
  wait(subject: string, options: WaitOptions = {}): Promise<void> {
    const cost = options.cost ?? 1;
    if (!Number.isSafeInteger(cost) || cost < 0) return Promise.reject(new InvalidCostError(cost));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    let maxWaitMs: number;
    try {
      maxWaitMs = positive("maxWaitMs", options.maxWaitMs, this.maxWaitMs);
    } catch (err) {
      return Promise.reject(err);
    }
    let queue = this.queues.get(subject);
    if (queue === undefined) {
      queue = { waiters: [], poll: undefined, asking: false };
      this.queues.set(subject, queue);
    }
    const q = queue;
    const now = this.clock.monoMs();
    const shares = this.shares.get(subject) ?? new CostShares(now);
    this.shares.set(subject, shares);
    shares.offer(cost, now);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => this.leave(subject, q, waiter, signal!.reason);
      const waiter: Waiter = {
        cost,
        resolve,
        reject,
        timer: undefined,
        detach: () => {
          waiter.timer?.cancel();
          signal?.removeEventListener("abort", onAbort);
        },
      };
      waiter.timer = this.clock.setTimer(maxWaitMs, () =>
        this.leave(subject, q, waiter, new WaitTimeoutError(maxWaitMs)),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      const at = placeByCost(q.waiters, cost, q.asking ? 1 : 0);
      q.waiters.splice(at, 0, waiter);
      if (at === 0 && !q.asking) this.pump(subject, q);
    });
  }

  /**
   * Takes the upstream's own word about its budget for `subject` (`@resil/classify`'s `upstreamBudgets`
   * of a response): until `resetInMs` from now, this replica's waits on `subject` admit no more than
   * `remaining` units (plus an even refill up to `limit` by the reset, when `limit` is given), on top
   * of the limiter's decision; `remaining: 0` holds them until the reset. A report allowing more than
   * the live hold still does is taken as stale and ignored. Returns whether the hold changed; a budget
   * without `remaining` or `resetInMs` changes nothing. Throws `InvalidBudgetError` for a bad field.
   */
  observe(subject: string, budget: UpstreamBudgetLike): boolean {
    const changed = this.holds.observe(subject, budget, this.clock.monoMs());
    const q = this.queues.get(subject);
    if (changed && q !== undefined && !q.asking) this.pump(subject, q);
    return changed;
  }

  /** Units the upstream's last word still allows this replica for `subject`; undefined without a live hold. */
  upstreamLeft(subject: string): number | undefined {
    return this.holds.left(subject, this.clock.monoMs());
  }

  /** Waiters queued on this replica for `subject` (all subjects when omitted). */
  waiting(subject?: string): number {
    if (subject !== undefined) return this.queues.get(subject)?.waiters.length ?? 0;
    let n = 0;
    for (const q of this.queues.values()) n += q.waiters.length;
    return n;
  }

  private leave(subject: string, q: Queue, waiter: Waiter, reason: unknown): void {
    const i = q.waiters.indexOf(waiter);
    if (i < 0) return;
    q.waiters.splice(i, 1);
    waiter.detach();
    waiter.reject(reason);
    if (i === 0) this.pump(subject, q);
  }

  /** Admits from the head while the limiter allows; otherwise asks once more after pollMs. */
  private pump(subject: string, q: Queue): void {
    q.poll?.cancel();
    q.poll = undefined;
    while (!q.asking) {
      const head = q.waiters[0];
      if (head === undefined) {
        this.forget(subject);
        return;
      }
      const now = this.clock.monoMs();
      const held = this.shares.get(subject)?.over(head.cost, now)
        ? this.pollMs
        : this.holds.delayFor(subject, head.cost, now);
      if (held > 0) {
        q.poll = this.clock.setTimer(held, () => this.pump(subject, q));
        return;
      }
      let d: Decision | undefined;
      try {
        d = this.limiter.tryCheck(subject, head.cost);
      } catch (err) {
        this.failAll(subject, q, err);
        return;
      }
      if (d === undefined) this.ask(subject, q, head);
      else if (d.kind !== "deny") this.admitHead(subject, q);
      else {
        this.denied(subject, q, head, d.reason);
        return;
      }
    }
  }

  private denied(subject: string, q: Queue, head: Waiter, reason: "limited" | "costExceedsLimit"): void {
    if (reason === "costExceedsLimit")
      this.leave(subject, q, head, new CostExceedsLimitError(subject, head.cost));
    else q.poll = this.clock.setTimer(this.pollMs, () => this.pump(subject, q));
  }

  /** Undecided from credit: one check for the head (a sync of the key), then pump again. */
  private ask(subject: string, q: Queue, head: Waiter): void {
    q.asking = true;
    const shares = this.shares.get(subject);
    // a one-unit head within its share (pump held it otherwise) may take units kept for larger ones
    const within = head.cost === 1 && shares !== undefined && !shares.idle(this.clock.monoMs());
    const checkShare = this.limiter.checkShare;
    const check =
      within && checkShare !== undefined
        ? checkShare.call(this.limiter, subject, head.cost)
        : this.limiter.check(subject, head.cost);
    check.then(
      (d) => {
        q.asking = false;
        if (q.waiters[0] !== head) {
          if (d.kind !== "deny") this.giveBack(subject, head.cost);
          return this.pump(subject, q);
        }
        if (d.kind !== "deny") {
          this.admitHead(subject, q);
          return this.pump(subject, q);
        }
        this.denied(subject, q, head, d.reason);
      },
      (err: unknown) => {
        q.asking = false;
        this.failAll(subject, q, err);
      },
    );
  }

  /** The head left (abort, timeout) while its check was in flight and the check admitted. */
  private giveBack(subject: string, cost: number): void {
    const { settle, storeTime } = this.limiter;
    if (settle === undefined || storeTime === undefined || cost === 0) return;
    try {
      settle.call(this.limiter, subject, -cost, storeTime.call(this.limiter));
    } catch {
      // A limiter closed meanwhile has nothing to give back to.
    }
  }

  private admitHead(subject: string, q: Queue): void {
    const head = q.waiters.shift()!;
    const now = this.clock.monoMs();
    this.holds.take(subject, head.cost, now);
    this.shares.get(subject)?.admit(head.cost, now);
    head.detach();
    head.resolve();
  }

  private failAll(subject: string, q: Queue, err: unknown): void {
    for (const w of q.waiters.splice(0)) {
      w.detach();
      w.reject(err);
    }
    q.poll?.cancel();
    this.forget(subject);
  }

  /** An empty queue goes; its shares too once nothing is held back. */
  private forget(subject: string): void {
    this.queues.delete(subject);
    if (this.shares.get(subject)?.idle(this.clock.monoMs())) this.shares.delete(subject);
  }
}
