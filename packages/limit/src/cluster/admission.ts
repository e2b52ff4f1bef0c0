import { free } from "../store/algorithm.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import type { Decision } from "./decision.js";
import { limitedDecision, longestRetryMs } from "./headers.js";
import type { RateKeyState } from "./rate-key.js";

/**
 * A denial with Retry-After from the view (see docs/protocol.md#s2-6): until a unit frees beside the
 * admits the store has not seen, one cold admit per other replica and (`countReservations`) the
 * credit others hold.
 */
export function denyFromView(
  k: RateKeyState,
  cost: number,
  t: number,
  replicas: number,
  countReservations: boolean,
): Decision {
  const reserved =
    k.localExtra() + (countReservations ? k.view.reservedOthers : 0) + (replicas - 1) + Math.max(0, cost - 1);
  const ms = longestRetryMs(k.alg, k.windows, k.view.windows, t, reserved);
  k.denied++;
  k.usedWindow = Math.floor(t / k.minWindowMs);
  return limitedDecision(k, t, ms);
}

/** Some window cannot fit `cost` more units beside the admits the store has not seen. */
export function certainlyFull(k: RateKeyState, cost: number, t: number): boolean {
  const extra = k.localExtra();
  for (let i = 0; i < k.windows.length; i++) {
    if (free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - extra < Math.max(cost, 1)) return true;
  }
  return false;
}

/**
 * Whether a request decided without a reply (an overrun) fits this replica's share of what its view
 * left (see docs/protocol.md#s2-5): the view's free units at `t`, less the credit others held, split
 * over the replicas; this replica's unused credit and the admits the store has not seen (its overruns
 * included) come out of that share first. Only in the window the view was taken in (others get a later
 * window's credit from the store meanwhile), except for a replica alone (N = 1) with an answered
 * view: that view, carried to `t`, is the whole truth. A store that answers, only late
 * (`storeAnswering`), keeps granting the free units to other replicas: then only a replica alone
 * overruns.
 */
export function overrunFits(
  k: RateKeyState,
  cost: number,
  t: number,
  viewT: number,
  replicas: number,
  storeAnswering: boolean,
): boolean {
  if (storeAnswering && replicas > 1) return false;
  const alone = replicas === 1 && k.view.answered;
  if (!alone && Math.floor(t / k.minWindowMs) !== Math.floor(viewT / k.minWindowMs)) return false;
  // what this replica holds or admitted unseen (its overruns included) comes out of its own share
  const own = k.localExtra() + k.unused() + cost;
  for (let i = 0; i < k.windows.length; i++) {
    const left = free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - k.view.reservedOthers;
    if (own > Math.floor(Math.max(0, left) / replicas)) return false;
  }
  return true;
}

/**
 * Cold credit of a rate key without credit (docs/protocol.md#s2-4): an unreserved share of each
 * limit (allowance / replicas, at most one sync interval's worth), within what the view shows free.
 */
export function coldRateCredit(k: RateKeyState, replicas: number, t: number): number {
  const allowance = Math.min(k.policy.localAllowance, 1);
  const extra = k.localExtra();
  let units = Number.POSITIVE_INFINITY;
  for (let i = 0; i < k.windows.length; i++) {
    const w = k.windows[i]!;
    const cap = k.capacities[i]!;
    let room = Math.min(
      Math.floor((allowance * cap) / replicas),
      Math.ceil((cap * k.policy.syncIntervalMs) / w.windowMs),
    );
    if (k.view.answered) room = Math.min(room, Math.floor(free(k.alg, w, k.view.windows[i]!, t) - extra));
    units = Math.min(units, room);
  }
  return units;
}

/**
 * Cold slots of a concurrency key without credit: a share of what neither others (at the last reply)
 * nor this replica hold.
 */
export function coldSlotCredit(c: ConcurrencyKeyState, replicas: number): number {
  const share = Math.min(c.tuning.localAllowance, 1) * (c.max - c.others - c.active);
  return Math.floor(share / replicas);
}
