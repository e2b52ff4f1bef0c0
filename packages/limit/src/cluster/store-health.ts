import type { KeyTuning } from "./config.js";
import { emitEvent, type LimiterEventListener } from "./events.js";

/** Each round-trip sample moves the measured round trip this share of the way. */
const RTT_GAIN = 0.2;
/** A wait on a sync lasts up to this many measured round trips (within cacheTtlMs). */
export const WAIT_RTT_FACTOR = 2;
/** After an outage, decisions stay fail-static until the store second it ended in is over. */
const PACE_WINDOW_MS = 1000;

/** A round trip in flight: when it was sent and whether it ended. */
interface PendingRound {
  sentAt: number;
  done: boolean;
}

/**
 * What this replica knows of the store (see docs/protocol.md#s4): failing or not and since when, the
 * clock offset to store time, and the replica count of the last heartbeat.
 */
export class StoreHealth {
  /** Store ms minus local monotonic ms. */
  offset: number;
  private offsetMeasured = false;
  /**
   * Round trip of the sample the offset rests on, growing 10 % a sample: a sample's error is at most
   * half its round trip, so a quicker round trip replaces the offset outright (a slow first round,
   * loading the scripts, must not skew window boundaries for long).
   */
  private offsetRtt = Number.POSITIVE_INFINITY;
  /** Live replicas of the service at the last heartbeat (`expectedReplicas` until the first). */
  replicaCount: number;
  /** The last round trip failed. */
  failing = false;
  /** Local time of the last successful round trip. */
  lastOk: number;
  /** Local time the store answered again after failing. */
  recoveredAt = Number.NEGATIVE_INFINITY;
  failureCount = 0;
  /** The last store error (diagnostics). */
  lastError: unknown;
  /** Measured round trip of a good round (moving average), ms; 0 until the first. */
  rttMs = 0;
  /** Times the store turned failing (a failed round or a round unanswered past cacheTtlMs) and recovered. */
  failingCount = 0;
  recoveredCount = 0;
  /** Rounds in flight, oldest first (rounds end mostly in order, so the front is trimmed cheaply). */
  private readonly pending: PendingRound[] = [];
  /** The last outage (gap between good rounds) and the local time its pacing ends. */
  private outageMs = 0;
  private paceUntil = Number.NEGATIVE_INFINITY;
  /** The local time until which credit stays within this replica's share after an outage. */
  private capUntil = Number.NEGATIVE_INFINITY;
  /** How long another replica may take to find the store back: a probe interval and a round. */
  recoverySpanMs = 0;

  /** A stall (a round unanswered past cacheTtlMs, no failure) was reported and has not ended. */
  private stalled = false;

  /** While failing, the next probe round may leave at this local time (+∞ while one is in flight). */
  private probeAt = Number.NEGATIVE_INFINITY;
  /** The last interval between probes; 0 while the store answers. */
  private probeGapMs = 0;

  constructor(
    monoMs: number,
    unixMs: number,
    expectedReplicas = 1,
    private readonly onEvent?: LimiterEventListener,
  ) {
    this.replicaCount = expectedReplicas;
    this.offset = unixMs - monoMs;
    this.lastOk = monoMs;
  }

  /** The replica count as a divisor (never 0). */
  replicas(): number {
    return Math.max(this.replicaCount, 1);
  }

  /**
   * How long a request waits on a sync: redisTimeoutMs, or longer when the store's measured round
   * trip is: up to WAIT_RTT_FACTOR round trips, never past cacheTtlMs (docs/protocol.md#s2-5).
   */
  waitBudgetMs(tuning: KeyTuning): number {
    return Math.max(tuning.redisTimeoutMs, Math.min(tuning.cacheTtlMs, WAIT_RTT_FACTOR * this.rttMs));
  }

  /**
   * Decisions are the replica's own (fail-static or fail-open, docs/protocol.md#s4): no good round for
   * longer than the key's cacheTtlMs while a round failed or one is still unanswered, or the store
   * second in which such an outage ended is not over yet (recovery is paced).
   */
  isDegraded(tuning: KeyTuning, now: number): boolean {
    const ttl = tuning.cacheTtlMs;
    if (now - this.lastOk > ttl) {
      if (this.failing) return true;
      if (now - this.oldestPending(now) > ttl) {
        if (!this.stalled) {
          this.stalled = true;
          this.failingCount++;
          emitEvent(this.onEvent, { type: "storeFailing", cause: "stalled", at: now });
        }
        return true;
      }
    }
    return now < this.paceUntil && this.outageMs > ttl;
  }

  /** The store answers again, but the second an outage ended in is not over: fail-static, even when failing open. */
  isPacing(tuning: KeyTuning, now: number): boolean {
    return !this.failing && !this.stalled && now < this.paceUntil && this.outageMs > tuning.cacheTtlMs;
  }

  /** After pacing, until every replica had time to find the store back: credit within this replica's share (docs/protocol.md#s4). */
  isCapped(tuning: KeyTuning, now: number): boolean {
    return !this.failing && !this.stalled && now < this.capUntil && this.outageMs > tuning.cacheTtlMs;
  }

  /** Failing, just recovered, or pacing a recovery: no new credit is asked for or taken (see docs/protocol.md#s4). */
  isRecovering(tuning: KeyTuning, now: number, tickMs: number): boolean {
    return (
      this.failing ||
      now - this.recoveredAt < 2 * Math.max(tuning.syncIntervalMs, tickMs) ||
      (now < this.paceUntil && this.outageMs > tuning.cacheTtlMs)
    );
  }

  /**
   * While the store fails, a background round or a kick leaves only as a probe, one per interval
   * (docs/protocol.md#s4): requests waiting meanwhile ride on the probe in flight or decide at once.
   */
  mayProbe(now: number): boolean {
    return !this.failing || now >= this.probeAt;
  }

  /** A round leaves; while failing it is the probe, and no other leaves until it ends. */
  probeSent(): void {
    if (this.failing) this.probeAt = Number.POSITIVE_INFINITY;
  }

  /**
   * A round failed at `at`: the next probe waits one interval, `minMs` at first, twice the last after
   * a failed probe, at most `maxMs`.
   */
  probeFailed(at: number, wasProbe: boolean, minMs: number, maxMs: number): void {
    const gap = this.probeGapMs === 0 ? minMs : wasProbe ? this.probeGapMs * 2 : this.probeGapMs;
    this.probeGapMs = Math.min(maxMs, Math.max(minMs, gap));
    this.probeAt = at + this.probeGapMs;
  }

  /**
   * How long the store has been stalled: no good round and a round unanswered for this long (0 when
   * it answers, or when it fails outright: a failed round distrusts credit itself).
   */
  stallMs(now: number): number {
    if (this.failing) return 0;
    return Math.max(0, Math.min(now - this.lastOk, now - this.oldestPending(now)));
  }

  /** When a failing store's outage counts (fail-static decides), or undefined: not failing, or counted already. */
  outageCountsAt(tuning: KeyTuning, now: number): number | undefined {
    if (!this.failing || this.isDegraded(tuning, now)) return undefined;
    return this.lastOk + tuning.cacheTtlMs + 1;
  }

  /** When the store counts as stalled unless a round answers first: `cacheTtlMs` past the last good round and the oldest one pending. */
  stallCountsAt(ttl: number, now: number): number {
    return Math.max(this.lastOk, this.oldestPending(now)) + ttl + 1;
  }

  /** A round trip leaves now; call `roundEnded` with the token when it ends either way. */
  roundStarted(now: number): PendingRound {
    const round = { sentAt: now, done: false };
    this.pending.push(round);
    return round;
  }

  roundEnded(round: PendingRound): void {
    round.done = true;
    while (this.pending.length > 0 && this.pending[0]!.done) this.pending.shift();
  }

  /** No round trip is in flight. */
  settled(): boolean {
    return this.pending.length === 0;
  }

  /** Send time of the oldest round still in flight (`now` when none). */
  private oldestPending(now: number): number {
    for (const r of this.pending) if (!r.done) return r.sentAt;
    return now;
  }

  /**
   * The registry's count. Within 3 heartbeats of a recovery the count does not drop: replicas that
   * have not reconnected yet (or a store restarted empty) would otherwise make the first one back
   * take the whole limit.
   */
  setReplicas(n: number, now: number, liveWindowMs: number): void {
    const count = Math.max(1, n);
    this.replicaCount = now - this.recoveredAt < liveWindowMs ? Math.max(this.replicaCount, count) : count;
  }

  /** A failed round trip; true when the store just started failing. */
  recordFailure(err: unknown, at: number): boolean {
    this.lastError = err;
    this.failureCount++;
    const started = !this.failing;
    this.failing = true;
    if (started && !this.stalled) {
      this.failingCount++;
      emitEvent(this.onEvent, { type: "storeFailing", cause: "error", error: err, at });
    }
    return started;
  }

  /**
   * The store read its clock somewhere between `sent` and `recv`, so the offset lies in
   * [storeNow − recv, storeNow − sent]. A quicker round trip replaces the offset outright; a slower one
   * moves it only as far as needed to lie in that range (a round held by a paused store reads its clock
   * at the end: taking its midpoint would shift every window by up to half the pause).
   */
  private sampleOffset(storeNow: number, sent: number, recv: number): void {
    const rtt = recv - sent;
    if (!this.offsetMeasured || rtt <= this.offsetRtt) {
      this.offset = storeNow - (sent + recv) / 2;
      this.offsetRtt = rtt;
    } else {
      const lo = storeNow - recv;
      const hi = storeNow - sent;
      const moved = Math.min(Math.max(this.offset, lo), hi);
      // a sample that disagrees with the offset (a clock stepped): trust it, its whole range as the error
      this.offsetRtt = moved === this.offset ? this.offsetRtt * 1.1 : Math.max(this.offsetRtt * 1.1, 2 * rtt);
      this.offset = moved;
    }
    this.offsetMeasured = true;
  }

  /**
   * How far the store's clock may lie from `offset`: half the round trip the offset rests on (a slow
   * first round, say), at most a second; 0 before any sample.
   */
  offsetError(): number {
    return this.offsetMeasured && Number.isFinite(this.offsetRtt)
      ? Math.min(this.offsetRtt / 2, PACE_WINDOW_MS)
      : 0;
  }

  /**
   * A round trip sent at `sent` answered at `recv`, the store's clock reading `storeNow` in between:
   * the offset is sampled (the first sample sets it). True when it ends an outage.
   */
  recordReply(sent: number, recv: number, storeNow: number | undefined): boolean {
    if (storeNow !== undefined && Number.isFinite(storeNow) && storeNow > 0) {
      this.sampleOffset(storeNow, sent, recv);
    }
    const rtt = recv - sent;
    this.rttMs = this.rttMs === 0 ? rtt : this.rttMs + RTT_GAIN * (rtt - this.rttMs);
    const ended = this.failing || this.stalled;
    if (this.failing) this.recoveredAt = recv;
    // An outage decisions saw (rounds failed, or one stalled past cacheTtlMs) ends: pace the recovery.
    // A round that was merely slow, or late because this event loop was blocked, is no outage.
    if (this.failing || this.stalled) {
      this.recoveredCount++;
      this.stalled = false;
      this.outageMs = recv - this.lastOk;
      // pace until the store's second is over at its latest reading, not only at its likeliest
      const err = this.offsetError();
      const t = recv + this.offset + err;
      this.paceUntil = (Math.floor(t / PACE_WINDOW_MS) + 1) * PACE_WINDOW_MS - this.offset + err;
      const late = t + this.recoverySpanMs;
      this.capUntil = (Math.floor(late / PACE_WINDOW_MS) + 1) * PACE_WINDOW_MS - this.offset + err;
      emitEvent(this.onEvent, { type: "storeRecovered", outageMs: this.outageMs, at: recv });
    }
    this.failing = false;
    this.probeGapMs = 0;
    this.probeAt = Number.NEGATIVE_INFINITY;
    this.lastOk = recv;
    return ended;
  }
}
