import { overrunFits } from "./admission.js";
import { isBusy } from "./idle-credit.js";
import type { RateKeyState } from "./rate-key.js";
import type { StoreHealth } from "./store-health.js";

/**
 * Which rate waits wait on instead of being denied (docs/protocol.md#s2-5): a request far below its
 * limit, when the store answers late or fails before the outage counts. Waiting on admits nothing the
 * store has not granted; it trades a denial for at most cacheTtlMs of latency.
 */

/** Far below its limit: a family subject with no view yet, or a key its view shows not busy. */
function farBelowLimit(k: RateKeyState, t: number): boolean {
  return k.view.answered ? !isBusy(k, t) : k.family !== undefined;
}

/** Far below its limit, and no lone replica's overrun decides it instead: no view yet, or other replicas. */
function mayWaitOn(health: StoreHealth, k: RateKeyState, now: number): boolean {
  if (!farBelowLimit(k, now + health.offset)) return false;
  return !k.view.answered || health.replicas() > 1;
}

/**
 * A timed-out wait while the store answers, only late: waits on, once, for a reply or until the oldest
 * round pending counts as a stall (cacheTtlMs after it left; then fail-static decides). Among replicas
 * no overrun is taken while the store grants; a lone replica's overrun decides a key with a view.
 */
export function waitsOnLateStore(
  health: StoreHealth,
  k: RateKeyState,
  now: number,
  started: number,
): boolean {
  if (health.failing || now - started >= k.policy.cacheTtlMs) return false;
  return mayWaitOn(health, k, now);
}

/**
 * A wait that waited on until the store would count as stalled, but the store answered other rounds
 * meanwhile (so it never did) and not this key's own (in flight, or queued behind them): waits on, once
 * more, for that round's reply or failure (roundTimeoutMs at most), as a stalled store's keys get fail-static.
 */
export function waitsOnOwnRound(health: StoreHealth, k: RateKeyState, now: number): boolean {
  if (health.failing || health.isDegraded(k.policy, now)) return false;
  return mayWaitOn(health, k, now);
}

/**
 * A wait ended on a failing store before the outage counts (cacheTtlMs after the last good round),
 * that no overrun can decide (no view, or a view of an earlier window): when the outage counts, for
 * fail-static to decide it; undefined when it is decided now.
 */
export function outageCountsAt(
  health: StoreHealth,
  k: RateKeyState,
  cost: number,
  now: number,
): number | undefined {
  const at = health.outageCountsAt(k.policy, now);
  if (at === undefined) return undefined;
  const t = now + health.offset;
  if (!farBelowLimit(k, t)) return undefined;
  if (overrunFits(k, cost, t, k.view.at + health.offset, health.replicas(), false)) return undefined;
  return at;
}
