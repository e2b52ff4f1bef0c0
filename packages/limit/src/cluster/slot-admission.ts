import type { Clock } from "../clock/clock.js";
import { coldSlotCredit } from "./admission.js";
import { type ConcurrencyKeyState, HeldSlot } from "./concurrency-key.js";
import {
  type AcquireResult,
  ALLOW_COLD,
  ALLOW_DEGRADED,
  ALLOW_LOCAL,
  ALLOW_OVERRUN,
  ALLOW_SYNC,
  DENY_DEGRADED,
  DENY_LOCAL,
  DENY_SYNC,
} from "./decision.js";
import { LimiterClosedError } from "./errors.js";
import { emitEvent } from "./events.js";
import type { Exchange } from "./exchange.js";
import { degradedSlotFree } from "./fail-static.js";
import { CREDIT_TRUST, type SyncEnv } from "./sync-maths.js";
import { startWait } from "./sync-wait.js";
import { DeadlineCall, type WaitDeadlines } from "./wait-deadlines.js";

/** Concurrency decisions (see docs/protocol.md#s3-7): a slot from credit, cold, or after a sync. */
export class SlotAdmission {
  private readonly clock: Clock;

  constructor(
    private readonly env: SyncEnv,
    private readonly deadlines: WaitDeadlines,
    private readonly exchange: Exchange,
    private readonly counts: number[],
    private readonly closed: () => boolean,
  ) {
    this.clock = deadlines.clock;
  }

  acquire(c: ConcurrencyKeyState): AcquireResult | Promise<AcquireResult> {
    return this.take(c, ALLOW_LOCAL) ?? this.acquireNow(c) ?? this.waitForSlot(c);
  }

  private take(c: ConcurrencyKeyState, outcome: number): AcquireResult | undefined {
    if (this.clock.monoMs() >= c.validUntil || c.active >= c.allowed) return undefined;
    return this.granted(c, outcome);
  }

  private granted(c: ConcurrencyKeyState, outcome: number): AcquireResult {
    c.active++;
    c.acquired++;
    this.counts[outcome]!++;
    return { kind: "acquired", slot: new HeldSlot(c) };
  }

  private denied(c: ConcurrencyKeyState, outcome: number): AcquireResult {
    this.counts[outcome]!++;
    return { kind: "denied", max: c.max, retryAfter: 1 };
  }

  /** Any decision reachable without waiting on the store; `undefined`: wait for a sync. `at`: a deadline's time, ahead of the clock. */
  private acquireNow(c: ConcurrencyKeyState, at?: number): AcquireResult | undefined {
    if (this.closed()) throw new LimiterClosedError("acquire");
    const { health, options } = this.env;
    const now = at ?? this.clock.monoMs();
    if (c.localOnly) return this.denied(c, DENY_LOCAL);
    if (health.isDegraded(c.tuning, now)) return this.degraded(c);
    if (now >= c.validUntil && !c.syncing && !health.isRecovering(c.tuning, now, options.tickMs)) {
      const slots = coldSlotCredit(c, health.replicas());
      if (slots > 0) {
        c.allowed = c.active + slots;
        c.validUntil = now + CREDIT_TRUST * options.leaseTtlMs;
        const result = this.take(c, ALLOW_COLD);
        void this.exchange.syncAlone(c);
        return result;
      }
    }
    return undefined;
  }

  private waitForSlot(c: ConcurrencyKeyState): Promise<AcquireResult> {
    return new Promise((resolve, reject) =>
      startWait(
        this.deadlines,
        c,
        1,
        this.env.health.waitBudgetMs(c.tuning),
        c.tuning.cacheTtlMs,
        "acquire",
        {
          attempt: () => this.take(c, ALLOW_SYNC),
          kick: () => void this.exchange.syncAlone(c),
          closed: this.closed,
          storeFailing: () => this.env.health.failing,
          ended: (result, timedOut) => {
            try {
              const until = result === undefined ? this.outageCountsAt(c, this.clock.monoMs()) : undefined;
              if (until === undefined) resolve(result ?? this.afterWait(c, timedOut));
              // far below its cap on a failing store: decided once the outage counts (fail-static)
              else
                this.deadlines.add(
                  new DeadlineCall(until, (now) => this.outageCounted(c, now, resolve, reject)),
                );
            } catch (error) {
              reject(error);
            }
          },
          failed: reject,
        },
      ),
    );
  }

  /**
   * When a wait that would be denied on a failing store, before the outage counts (cacheTtlMs after
   * the last good round), ends instead, for a key below its share of the slots others did not hold:
   * then fail-static decides (docs/protocol.md#s3-7). Undefined otherwise.
   */
  private outageCountsAt(c: ConcurrencyKeyState, now: number): number | undefined {
    const health = this.env.health;
    const at = health.outageCountsAt(c.tuning, now);
    return at === undefined || c.active >= overrunSlots(c, health.replicas()) ? undefined : at;
  }

  /** The outage counts at `now` (its deadline's time, which the clock may not read yet), or the store answered again. */
  private outageCounted(
    c: ConcurrencyKeyState,
    now: number,
    resolve: (r: AcquireResult) => void,
    reject: (error: unknown) => void,
  ): void {
    try {
      resolve(this.take(c, ALLOW_SYNC) ?? this.acquireNow(c, now) ?? this.afterWait(c, true, now));
    } catch (error) {
      reject(error);
    }
  }

  /** Fail-static (or fail-open) while the store is unavailable (docs/protocol.md#s4). */
  private degraded(c: ConcurrencyKeyState): AcquireResult {
    const failOpen = this.env.options.onStoreUnavailable === "allow";
    return degradedSlotFree(c, this.env.health.replicas(), failOpen)
      ? this.granted(c, ALLOW_DEGRADED)
      : this.denied(c, DENY_DEGRADED);
  }

  /** No slot came while waiting: fail-static once the outage counts, the overrun share of a slow store, or a denial. */
  private afterWait(c: ConcurrencyKeyState, timedOut: boolean, at?: number): AcquireResult {
    const decided = this.take(c, ALLOW_SYNC);
    if (decided !== undefined) return decided;
    if (this.env.health.isDegraded(c.tuning, at ?? this.clock.monoMs())) return this.degraded(c);
    // A slow store (no reply in time, none failed): the replica's even share of the slots others
    // did not hold at the last reply, counting the slots it holds (see docs/protocol.md#s3-7).
    if (timedOut && !this.env.health.failing && c.active < overrunSlots(c, this.env.health.replicas())) {
      emitEvent(this.env.options.onEvent, { type: "overrun", subject: c.subject, at: this.clock.monoMs() });
      return this.granted(c, ALLOW_OVERRUN);
    }
    return this.denied(c, DENY_SYNC);
  }
}

/** Slots a replica may hold without a reply: ⌊(max − others at the last reply) / N⌋. */
export function overrunSlots(c: ConcurrencyKeyState, replicas: number): number {
  return Math.floor(Math.max(0, c.max - c.others) / replicas);
}
