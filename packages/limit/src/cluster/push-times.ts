import { windowIndex } from "../store/algorithm.js";
import { SLIDING_WINDOW, TOKEN_BUCKET } from "../store/algorithm-code.js";
import type { RateKeyState } from "./rate-key.js";
import { windowEnd } from "./sync-maths.js";

/**
 * When a push's admits were made, as a rate request carries them (docs/protocol.md#s3-2): `hitsOld`
 * at store time `tOld`, `hits` at the store's now.
 */
export interface PushTimes {
  hits: number;
  hitsOld: number;
  tOld: number;
}

/** A push this near its window's end (or 4 round trips, when longer) dates its admits. */
const LATE_PUSH_MS = 100;

/** Every window of `k` has dropped admits made at `tHit` by store time `t` (a sliding window keeps one previous). */
function deadAtStore(k: RateKeyState, tHit: number, t: number): boolean {
  const kept = k.alg === SLIDING_WINDOW ? 1 : 0;
  return k.windows.every((w) => windowIndex(tHit, w.windowMs) < windowIndex(t, w.windowMs) - kept);
}

/**
 * Splits `pending` admits (made since `pushedBefore`, sent at store time `t`, the offset off by up to
 * `err`): those before the boundary snapshot are old. Extension: near a window's end a round may
 * reach the store after the window closed; the admits it carries were made by `t + err` at the
 * latest, so they are dated then and charged to their own window, not to the next one.
 */
export function pushTimes(
  k: RateKeyState,
  pending: number,
  pushedBefore: number,
  t: number,
  err: number,
  rttMs: number,
): PushTimes {
  const beforeBoundary = k.boundaryAdmitted > pushedBefore ? k.boundaryAdmitted - pushedBefore : 0;
  const hitsOld = Math.min(beforeBoundary, pending);
  const split = { hits: pending - hitsOld, hitsOld, tOld: hitsOld > 0 ? k.boundaryTime : 0 };
  if (k.alg === TOKEN_BUCKET || split.hits === 0) return split;
  if (windowEnd(t, k.minWindowMs) - t > Math.max(LATE_PUSH_MS, 4 * rttMs)) return split;
  // the request dates one group of admits: the old ones leave it only when the store drops them anyway
  if (hitsOld > 0 && !deadAtStore(k, k.boundaryTime, t - err)) return split;
  return { hits: 0, hitsOld: split.hits, tOld: t + err };
}

/** The hits of `request` the store charged to the window holding its `now` (dated ones included). */
export function hitsChargedNow(request: PushTimes, now: number, windowMs: number): number {
  const dated = Math.floor(Math.min(request.tOld, now) / windowMs) === Math.floor(now / windowMs);
  return request.hits + (dated ? request.hitsOld : 0);
}
