import type { KeyTuning } from "./config.js";

/** Each clock-offset sample after the first moves the offset this share of the way. */
const OFFSET_GAIN = 0.2;
/** Each round-trip sample moves the measured round trip this share of the way. */
const RTT_GAIN = 0.2;
/** A wait on a sync lasts up to this many measured round trips (within cacheTtlMs). */
export const WAIT_RTT_FACTOR = 2;

/**
 * What this replica knows of the store (see docs/protocol.md#s4): failing or not and since when, the
 * clock offset to store time, and the replica count of the last heartbeat.
 */
export class StoreHealth {
  /** Store ms minus local monotonic ms. */
  offset: number;
  private offsetMeasured = false;
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

  constructor(monoMs: number, unixMs: number, expectedReplicas = 1) {
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

  /** The store has been failing longer than the key's cacheTtlMs. */
  isDegraded(tuning: KeyTuning, now: number): boolean {
    return this.failing && now - this.lastOk > tuning.cacheTtlMs;
  }

  /** Failing, or just recovered: no new credit is asked for or taken (see docs/protocol.md#s4). */
  isRecovering(tuning: KeyTuning, now: number, tickMs: number): boolean {
    return this.failing || now - this.recoveredAt < 2 * Math.max(tuning.syncIntervalMs, tickMs);
  }

  /** A failed round trip; true when the store just started failing. */
  recordFailure(err: unknown): boolean {
    this.lastError = err;
    this.failureCount++;
    const started = !this.failing;
    this.failing = true;
    return started;
  }

  /**
   * A round trip sent at `sent` answered at `recv`, the store's clock reading `storeNow` in between:
   * the offset moves toward the sample (the first sample sets it).
   */
  recordReply(sent: number, recv: number, storeNow: number | undefined): void {
    if (storeNow !== undefined && Number.isFinite(storeNow) && storeNow > 0) {
      const sample = storeNow - (sent + recv) / 2;
      this.offset = this.offsetMeasured ? this.offset + OFFSET_GAIN * (sample - this.offset) : sample;
      this.offsetMeasured = true;
    }
    const rtt = recv - sent;
    this.rttMs = this.rttMs === 0 ? rtt : this.rttMs + RTT_GAIN * (rtt - this.rttMs);
    if (this.failing) this.recoveredAt = recv;
    this.failing = false;
    this.lastOk = recv;
  }
}
