import type { Clock, Timer } from "../clock/clock.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import { creditIdle, isBusy } from "./idle-credit.js";
import type { RateKeyState } from "./rate-key.js";
import { someWindowEndsAt } from "./rate-key-parts.js";
import { claim, type SyncEnv } from "./sync-maths.js";

/** When keys are due for a sync, and the timers that run rounds (see docs/protocol.md#s2-7, #s2-8). */

/** The loop wakes this long before each whole second of store time to snapshot admits (docs/protocol.md#s2-8). */
export const BOUNDARY_LEAD_MS = 2;
/** Background rounds in flight at once. */
export const MAX_ROUNDS_IN_FLIGHT = 4;
/** The background tick's longest sleep while nothing is scheduled and no round is in flight. */
export const IDLE_TICK_MS = 1000;

/**
 * Extension (fairness): a key used in the previous window and out of credit syncs once as soon as
 * the next window opens, so a quiet replica asks for the fresh budget alongside the busy ones
 * instead of after them.
 */
export function opensAfterUse(k: RateKeyState, now: number, offset: number): boolean {
  const w = Math.floor((now + offset) / k.minWindowMs);
  const used = k.usedWindow === w - 1 || (k.hasUnpushed() && k.usedWindow < w);
  return used && k.unused() < 1 && Math.floor((k.lastSync + offset) / k.minWindowMs) < w;
}

/** When a rate key is due for a sync (docs/protocol.md#s2-7); `slack` < 1 lets nearly due keys ride along. */
export function rateDue(env: SyncEnv, k: RateKeyState, now: number, slack: number): boolean {
  if (k.syncing) return false;
  if (k.waiters > 0) return true;
  // Asking for more credit before exhaustedUntil gets nothing.
  if (k.refillWanted && !k.isExhausted(now)) return true;
  if (opensAfterUse(k, now, env.health.offset)) return true;
  // Exhausted with nothing to push: the store said when a unit frees, asking sooner gets nothing.
  if (k.isExhausted(now) && k.nothingToPush()) return false;
  const { slowSyncMs } = env.options;
  const since = now - k.lastSync;
  if (k.isQuiet()) {
    // A quiet key gives back credit it holds well beyond its demand, when others could miss it: a
    // key far below its limit (held credit included) lets it lapse with its lease instead.
    return now < k.validUntil && since >= slowSyncMs * slack && givesBack(env, k, now);
  }
  const busy = isBusy(k, now + env.health.offset);
  const interval = busy ? k.policy.syncIntervalMs : Math.max(slowSyncMs, k.policy.syncIntervalMs);
  if (!busy && isSparse(k, now)) {
    // as a rider it goes at most one sync interval early, else it would go alone after all
    return since >= sparseWaitMs(k, interval) - (1 - slack) * 2 * k.policy.syncIntervalMs;
  }
  return since >= interval * slack;
}

/**
 * A quiet key holds credit well beyond its demand that others could miss. False stays false until
 * the key admits, is denied or syncs: its load only falls with time, the rest holds still.
 */
export function givesBack(env: SyncEnv, k: RateKeyState, now: number): boolean {
  const unused = k.unused();
  return (
    unused > 1 &&
    k.ewma * env.options.slowSyncMs * 2 < unused &&
    !creditIdle(k, unused, now + env.health.offset)
  );
}

/**
 * Extension (sparse keys): one admit waiting to be pushed, taken from credit still valid with more
 * left. The credit's lease reserves that unit in the store until the push, so the key may wait for a
 * second admit before it syncs: each sync is a script run on Redis, and a key used about once an
 * interval would otherwise cost one per request.
 */
export function isSparse(k: RateKeyState, now: number): boolean {
  const pending = k.admitted - k.pushed;
  // idle credit (idle-credit.ts) holds any admits made from it until it nears its lapse
  const held = k.idleCredit ? pending >= 1 : pending === 1;
  return k.denied === 0 && held && k.unused() >= 1 && now < k.validUntil;
}

/**
 * How long after its last sync a sparse key pushes its one admit: one sync interval before its credit
 * lapses (the lease lives longer still), at most three intervals, never sooner than a busier key.
 */
export function sparseWaitMs(k: RateKeyState, interval: number): number {
  const beforeLapse = k.validUntil - k.lastSync - k.policy.syncIntervalMs;
  return Math.max(interval, k.idleCredit ? beforeLapse : Math.min(3 * interval, beforeLapse));
}

/** When a concurrency key is due for a sync. */
export function concurrencyDue(env: SyncEnv, c: ConcurrencyKeyState, now: number, slack: number): boolean {
  if (c.syncing) return false;
  if (c.waiters > 0) return true;
  const acquiring = c.acquired > c.acquiredAtSync;
  if (!acquiring && c.active === 0 && c.allowed <= c.active) return false;
  const busy = acquiring && (c.active + c.others) * 2 > c.max;
  const interval = busy ? c.tuning.syncIntervalMs : Math.max(env.options.slowSyncMs, c.tuning.syncIntervalMs);
  return now - c.lastSync >= interval * slack;
}

/** Claims the keys due at `slack` (all when forcing), up to `limit` in all, into `rates` and `caps`. */
export function collectDue(
  env: SyncEnv,
  from: { rates: Map<string, RateKeyState>; caps: Map<string, ConcurrencyKeyState> },
  into: { rates: RateKeyState[]; caps: ConcurrencyKeyState[] },
  now: number,
  slack: number,
  force: boolean,
  limit: number,
): void {
  const { rates, caps } = into;
  for (const k of from.rates.values()) {
    if (rates.length + caps.length >= limit) return;
    if (!k.localOnly && !k.syncing && (force || rateDue(env, k, now, slack)) && claim(k)) rates.push(k);
  }
  for (const c of from.caps.values()) {
    if (rates.length + caps.length >= limit) return;
    if (!c.localOnly && !c.syncing && (force || concurrencyDue(env, c, now, slack)) && claim(c)) caps.push(c);
  }
}

/**
 * Marks admits made before boundary `b` so the next push charges them to the window they were in.
 * True when some key was used in the window that `b` closes (see opensAfterUse).
 */
export function snapshotBoundary(rates: Iterable<RateKeyState>, b: number): boolean {
  // per-minute keys only: 59 boundaries in 60 need no walk over every awake key
  if (!someWindowEndsAt(b)) return false;
  let starved = false;
  for (const k of rates) {
    if (k.localOnly || b % k.minWindowMs !== 0) continue;
    if (k.hasUnpushed()) {
      k.boundaryTime = b - BOUNDARY_LEAD_MS;
      k.boundaryAdmitted = k.admitted;
    }
    if (k.usedWindow === b / k.minWindowMs - 1 || k.hasUnpushed()) starved = true;
  }
  return starved;
}

/** The next whole second of store time at least BOUNDARY_LEAD_MS after `t`. */
export function nextBoundary(t: number): number {
  let b = Math.floor(t / 1000) * 1000 + 1000;
  if (b - BOUNDARY_LEAD_MS <= t) b += 1000;
  return b;
}

/** What the timers drive: a background round. */
export interface RoundRunner {
  round(force: boolean, heartbeat: boolean): Promise<void>;
  /** The last round took as many keys as a round holds: more may be due now. */
  readonly lastRoundFull: boolean;
}

/** The background loop's timers: every tickMs, just before each whole second, and on demand. */
export class SyncTimers {
  /** Timers fire only while running (between start and shutdown). */
  running = false;
  private roundsInFlight = 0;
  private wakeQueued = false;
  private tickTimer: Timer | undefined;
  private boundaryTimer: Timer | undefined;
  /** The wake 1 ms after a boundary for keys used in the closing window (opensAfterUse). */
  private openTimer: Timer | undefined;
  /** The tick is armed at the idle pace (longer than tickMs). */
  private sleeping = false;
  /** No key was awake at the last boundary: the boundary timer waits for one. */
  private boundaryParked = false;

  constructor(
    private readonly env: SyncEnv,
    private readonly clock: Clock,
    /** The keys a boundary looks at (queued or syncing). */
    private readonly rates: ReadonlySet<RateKeyState>,
    private readonly runner: RoundRunner,
    /** Runs on every tick before the round (idle eviction). */
    private readonly onTick: (now: number) => void = () => {},
    /** How long the tick may sleep at `now` because nothing is scheduled (0: tick at tickMs). */
    private readonly idleSleepMs: (now: number) => number = () => 0,
  ) {}

  start(): void {
    this.armTick();
    this.armBoundary();
  }

  stop(): void {
    this.running = false;
    this.tickTimer?.cancel();
    this.boundaryTimer?.cancel();
    this.openTimer?.cancel();
  }

  /** Asks for a round soon (the early sync of a key below its refill threshold). */
  wake(): void {
    if (!this.running || this.wakeQueued) return;
    this.wakeQueued = true;
    queueMicrotask(() => {
      this.wakeQueued = false;
      this.backgroundRound();
    });
  }

  // A full round is followed by another at once, up to MAX_ROUNDS_IN_FLIGHT in flight.
  private backgroundRound(): void {
    do {
      if (this.roundsInFlight >= MAX_ROUNDS_IN_FLIGHT) return;
      this.roundsInFlight++;
      this.runner.round(false, false).finally(() => {
        this.roundsInFlight--;
      });
    } while (this.runner.lastRoundFull);
  }

  /** A key became due: a tick sleeping at the idle pace comes back to tickMs, a parked boundary re-arms. */
  resume(): void {
    if (!this.running) return;
    if (this.boundaryParked) {
      this.boundaryParked = false;
      this.armBoundary();
    }
    if (!this.sleeping) return;
    this.tickTimer?.cancel();
    this.armTick();
  }

  private armTick(): void {
    // an idle limiter wakes a few times a second, not every tickMs: the wakeups are its idle CPU
    const { tickMs } = this.env.options;
    const idleMs = this.idleSleepMs(this.clock.monoMs());
    this.sleeping = idleMs > tickMs;
    this.tickTimer = this.clock.setTimer(
      this.sleeping ? idleMs : tickMs,
      () => {
        if (!this.running) return;
        this.armTick();
        this.onTick(this.clock.monoMs());
        this.backgroundRound();
      },
      { unref: true },
    );
  }

  /** Sleeps until BOUNDARY_LEAD_MS before the next whole second of store time (docs/protocol.md#s2-8). */
  private armBoundary(): void {
    const t = this.clock.monoMs() + this.env.health.offset;
    const b = nextBoundary(t);
    this.boundaryTimer = this.clock.setTimer(
      b - BOUNDARY_LEAD_MS - t,
      () => {
        if (!this.running) return;
        const starved = snapshotBoundary(this.rates, b);
        // with no key awake a boundary has nothing to snapshot: the next key due re-arms it (resume)
        if (this.rates.size === 0) this.boundaryParked = true;
        else this.armBoundary();
        this.backgroundRound();
        // Keys used in the closing window ask for the new one's budget right as it opens.
        if (starved) {
          this.openTimer = this.clock.setTimer(BOUNDARY_LEAD_MS + 1, () => this.backgroundRound(), {
            unref: true,
          });
        }
      },
      { unref: true },
    );
  }
}
