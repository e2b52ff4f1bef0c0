import { apply } from "../store/algorithm.js";
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

/**
 * Counts `admits` (made since the last push) against this replica's share at store time `t` and
 * returns the whole units of the share still free (≥ 0).
 */
export function shareRoom(
  k: RateKeyState,
  table: LocalWindows,
  t: number,
  replicas: number,
  admits: number,
): number {
  const windows = k.degradedWindows(replicas);
  const e = table.entry(`${k.storeKey}:local`, windows.length, t);
  for (let i = 0; i < windows.length; i++) apply(k.alg, windows[i]!, e.states[i]!, t, admits);
  e.expiresAt = Math.max(e.expiresAt, t + rateKeyTtlMs(windows, 1));
  return Math.max(0, freeUnits(k.alg, windows, e.states, t));
}
