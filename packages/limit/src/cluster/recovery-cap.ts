import { apply, applyPast } from "../store/algorithm.js";
import { rateKeyTtlMs } from "../store/request.js";
import { freeUnits } from "./fail-static.js";
import type { LocalWindows } from "./local-counts.js";
import type { RateKeyState } from "./rate-key.js";

/**
 * Extension (docs/protocol.md#s4): for a while after an outage ends another replica may still be
 * failing, spending its fail-static share where the store cannot see it. Until every replica has had
 * time to find the store back, this one takes from the store at most its own share of each window,
 * counted in the scaled windows of its fail-static decisions.
 */

/** Admits a push carries: `hitsOld` made before the boundary at `tOld`, `hits` since. */
export interface PushedAdmits {
  pushedBefore: number;
  hits: number;
  hitsOld: number;
  tOld: number;
}

/**
 * Counts the push's admits against this replica's share at store time `t` and returns the whole
 * units of the share still free (≥ 0). Admits the share counted already (fail-static ones, the oldest)
 * are not counted again.
 */
export function shareRoom(
  k: RateKeyState,
  table: LocalWindows,
  t: number,
  replicas: number,
  push: PushedAdmits,
): number {
  const windows = k.degradedWindows(replicas);
  const e = table.entry(`${k.storeKey}:local`, windows.length, t);
  const total = push.hits + push.hitsOld;
  const counted = Math.min(total, Math.max(0, e.countedThrough - push.pushedBefore));
  const old = Math.max(0, push.hitsOld - counted);
  const fresh = total - counted - old;
  for (let i = 0; i < windows.length; i++) {
    applyPast(k.alg, windows[i]!, e.states[i]!, Math.min(push.tOld, t), old);
    apply(k.alg, windows[i]!, e.states[i]!, t, fresh);
  }
  e.countedThrough = Math.max(e.countedThrough, push.pushedBefore + total);
  e.expiresAt = Math.max(e.expiresAt, t + rateKeyTtlMs(windows, 1));
  return Math.max(0, freeUnits(k.alg, windows, e.states, t));
}
