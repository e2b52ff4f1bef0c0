import type { Clock } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { acquireLoop, type Waiter } from "./acquire-loop.js";
import type { RateLimitedInfo } from "./errors.js";
import type { Meter } from "./meter.js";
import type { LocalAcquireOptions, LocalLimiterMetrics, LocalLimiterOptions } from "./metrics.js";
import { PERMIT, type Permit } from "./permit.js";
import { ceilWait, checkCost } from "./validate.js";

/** One tier of a `MultiRateLimiter`: a labelled meter and the units each call charges it (0 = off). */
export interface Tier {
  readonly name: string;
  readonly meter: Meter;
  readonly cost: number;
}

/** Every applicable tier had room and was charged. */
export interface MultiAcquired {
  readonly ok: true;
  readonly permit: Permit;
}

/** The first tier without room, and how long until it may admit (>= 1 ms; Infinity = never). */
export interface MultiRejected extends RateLimitedInfo {
  readonly ok: false;
}

export type MultiAcquireResult = MultiAcquired | MultiRejected;

// Every success is the same value: releasing a multi permit does nothing.
const ACQUIRED: MultiAcquired = Object.freeze({ ok: true, permit: PERMIT });
const NO_TIERS: readonly string[] = Object.freeze([]);

/**
 * Admits a call only when every applicable tier has room, charging all of them or none: on the first
 * tier that refuses, the tiers already charged are refunded and later tiers are not touched.
 * Immutable: `withTier` returns a new limiter sharing the same meters.
 */
export class MultiRateLimiter {
  readonly tiers: readonly Tier[];
  private readonly options: LocalLimiterOptions;
  private readonly clock: Clock;
  private readonly metrics: LocalLimiterMetrics | undefined;
  private readonly name: string;
  // Scratch for the epochs of one synchronous reserve pass (sized to the tiers, reused).
  private readonly epochs: number[];

  /** `tiers` seeds the limiter (each checked like `withTier`); usually start empty and call `withTier`. */
  constructor(options: LocalLimiterOptions = {}, tiers: readonly Tier[] = []) {
    this.options = options;
    this.clock = options.clock ?? coarseClock;
    this.metrics = options.metrics;
    this.name = options.name ?? "multi-rate-limiter";
    for (const t of tiers) checkCost(t.cost, `MultiRateLimiter tier ${JSON.stringify(t.name)}`);
    this.tiers = Object.freeze([...tiers]);
    this.epochs = new Array<number>(tiers.length).fill(0);
  }

  /**
   * A new limiter with one more tier charged `cost` per call. Names are labels, not keys: the same
   * meter under two tiers is charged twice. RangeError on a bad cost.
   */
  withTier(name: string, meter: Meter, cost: number): MultiRateLimiter {
    if (typeof name !== "string") throw new TypeError(`MultiRateLimiter.withTier: name must be a string`);
    return new MultiRateLimiter(this.options, [...this.tiers, Object.freeze({ name, meter, cost })]);
  }

  /** Charges every tier now, or returns which tier refused and for how long. */
  tryAcquire(): MultiAcquireResult {
    return this.tryAcquireFor(NO_TIERS);
  }

  /** Like `tryAcquire`, counting only the tiers named in `only` (all tiers when empty). */
  tryAcquireFor(only: readonly string[]): MultiAcquireResult {
    const blocked = this.reserveAll(only);
    if (blocked === null) {
      this.metrics?.acquired?.(this.name, 1);
      return ACQUIRED;
    }
    this.metrics?.throttled?.(this.name, "rejected");
    return blocked;
  }

  /** Waits until every tier has room, then charges them all. */
  acquire(opts?: LocalAcquireOptions): Promise<Permit> {
    return this.acquireFor(NO_TIERS, opts);
  }

  /**
   * Waits until every tier named in `only` has room, sleeping the blocking tier's retry-after each
   * time (forever, with no timer, for a tier that can never admit). Rejects only on abort.
   */
  async acquireFor(only: readonly string[], opts: LocalAcquireOptions = {}): Promise<Permit> {
    return acquireLoop(this.waiter(), 1, opts.signal, () => {
      const blocked = this.reserveAll(only);
      return blocked === null ? undefined : ceilWait(blocked.retryAfterMs);
    });
  }

  // Null when every applicable tier was charged; else the refusal, with earlier tiers refunded.
  private reserveAll(only: readonly string[]): MultiRejected | null {
    const tiers = this.tiers;
    const filter = only.length > 0;
    for (let i = 0; i < tiers.length; i++) {
      const tier = tiers[i]!;
      if (tier.cost === 0 || (filter && !only.includes(tier.name))) continue;
      const epoch = tier.meter.tryDebit(tier.cost);
      if (epoch !== null) {
        this.epochs[i] = epoch;
        continue;
      }
      const retryAfterMs = Math.max(tier.meter.timeUntil(tier.cost), 1);
      this.refundBefore(i, only, filter);
      this.metrics?.tierThrottled?.(this.name, tier.name);
      return { ok: false, tier: tier.name, retryAfterMs };
    }
    return null;
  }

  private refundBefore(end: number, only: readonly string[], filter: boolean): void {
    for (let i = end - 1; i >= 0; i--) {
      const tier = this.tiers[i]!;
      if (tier.cost === 0 || (filter && !only.includes(tier.name))) continue;
      tier.meter.credit(tier.cost, this.epochs[i]!);
    }
  }

  /** Who waits in `acquireLoop`, for its metrics. */
  private waiter(): Waiter {
    return { clock: this.clock, metrics: this.metrics, name: this.name };
  }
}
