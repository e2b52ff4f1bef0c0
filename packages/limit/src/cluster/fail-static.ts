import { apply, applyPast, capacity, free, usage } from "../store/algorithm.js";
import { TOKEN_BUCKET } from "../store/algorithm-code.js";
import { grantStep } from "../store/grant.js";
import { rateKeyTtlMs } from "../store/request.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import { ALLOW_DEGRADED, DENY_DEGRADED, type Decision } from "./decision.js";
import { allowWithFreshHeaders, limitedDecision, longestRetryMs, snapshotHeaders } from "./headers.js";
import type { LocalWindows, StoredCounts } from "./local-counts.js";
import type { RateKeyState } from "./rate-key.js";
import { windowEnd } from "./sync-maths.js";

export { LocalWindows } from "./local-counts.js";

/**
 * Decisions this replica takes alone: local-only keys (allowance >= 1, or no store) and fail-static
 * ones while the store is unavailable (see docs/protocol.md#s2-9 and #s4). The windows are counted
 * here, with the store's window maths, as a store would count them for one replica.
 */

// Fail-static decisions hold no credit: each takes units directly.
const DIRECT_LEASE_MS = 1;

/** Units free in every window at `t`, whole (negative: over the limit). */
export function freeUnits(
  alg: AlgorithmCode,
  windows: readonly WindowSpec[],
  states: WindowState[],
  t: number,
): number {
  let low = Number.POSITIVE_INFINITY;
  for (let i = 0; i < windows.length; i++) {
    low = Math.min(low, capacity(alg, windows[i]!) - usage(alg, windows[i]!, states[i]!, t));
  }
  return Math.floor(low);
}

/**
 * Local-only key out of credit or past its window boundary: counts its admits, then takes every
 * free unit as credit (up to the smallest capacity) until the next boundary.
 */
export function refreshLocalCredit(k: RateKeyState, table: LocalWindows, now: number, t: number): void {
  const pending = Math.max(0, k.admitted - k.pushed);
  const crossed = k.boundary > 0 && t >= k.boundary;
  const e = table.entryOf(k, t);
  for (let i = 0; i < k.windows.length; i++) {
    const w = k.windows[i]!;
    const st = e.states[i]!;
    // admits made before the boundary count in the window they were made in
    if (crossed) applyPast(k.alg, w, st, k.boundary - 1, pending);
    apply(k.alg, w, st, t, crossed ? 0 : pending);
  }
  const avail = freeUnits(k.alg, k.windows, e.states, t);
  const unused = k.unused();
  const kept = e.lease > 0 ? Math.min(unused, e.lease) : Math.min(unused, Math.max(avail, 0));
  const { granted } = grantStep(avail - kept, Math.max(k.minCapacity, 1), 0, 1, 1);
  e.lease = kept + granted;
  // the entry is the view: it changes only here, so it reads as a copy taken now would
  e.at = now;
  k.view = e;
  k.pushed = k.admitted;
  k.credit = k.admitted + kept + granted;
  k.refillBelow = 0;
  k.validUntil = Number.POSITIVE_INFINITY;
  k.boundary = (Math.floor(t / k.minWindowMs) + 1) * k.minWindowMs;
  snapshotHeaders(k, t);
}

/** Takes up to `need` units from every window at `t` when at least one is free; returns how many. */
function takeDirect(
  alg: AlgorithmCode,
  windows: readonly WindowSpec[],
  e: StoredCounts,
  t: number,
  need: number,
): number {
  for (let i = 0; i < windows.length; i++) apply(alg, windows[i]!, e.states[i]!, t, 0);
  const avail = freeUnits(alg, windows, e.states, t);
  const { direct } = grantStep(avail, 0, need, 1, 1);
  if (direct > 0) for (let i = 0; i < windows.length; i++) apply(alg, windows[i]!, e.states[i]!, t, direct);
  e.lease = 0;
  e.expiresAt = t + rateKeyTtlMs(windows, DIRECT_LEASE_MS);
  return direct;
}

/** Which outage a fail-static decision is in, and the store time of the key's last view. */
export interface FailStaticOutage {
  /** Local time of the last good round: the same for every decision of one outage. */
  since: number;
  viewT: number;
}

/**
 * As an outage starts (or its pacing after recovery), the window may be partly used: this replica's
 * share of it is ⌊(free in its view − credit others held) / N⌋ less its own admits the store has not
 * seen (others' credit counts only in the view's window: it is not trusted past it). Rounded down, so
 * N shares of one view never pass what it left free. The scaled windows are charged the difference,
 * so the share is not granted on top of what was admitted. Without a view, the admits made on cold
 * credit are charged.
 */
function countKnownAdmits(
  k: RateKeyState,
  windows: readonly WindowSpec[],
  e: StoredCounts,
  t: number,
  replicas: number,
  viewT: number,
): void {
  const extra = k.localExtra();
  e.countedThrough = k.admitted;
  if (!k.view.answered) {
    // no view: what this replica admitted on cold credit is all it knows of the window
    if (extra > 0) for (let i = 0; i < windows.length; i++) apply(k.alg, windows[i]!, e.states[i]!, t, extra);
    return;
  }
  const sameWindow = Math.floor(t / k.minWindowMs) === Math.floor(viewT / k.minWindowMs);
  const others = sameWindow ? k.view.reservedOthers : 0;
  for (let i = 0; i < windows.length; i++) {
    const left = free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - others;
    const share = Math.max(0, Math.floor(Math.max(0, left) / replicas) - extra);
    const scaled = free(k.alg, windows[i]!, e.states[i]!, t);
    const charge = Math.floor(scaled - share);
    if (charge > 0) apply(k.alg, windows[i]!, e.states[i]!, t, charge);
  }
}

/**
 * Store time from `t` (its earliest reading) to `t + spreadMs` (its latest) crosses a window boundary:
 * ms until the earliest reading reaches it, else 0. Token buckets have no boundary.
 */
export function boundaryAhead(k: RateKeyState, t: number, spreadMs: number): number {
  if (spreadMs <= 0 || k.alg === TOKEN_BUCKET) return 0;
  let ms = 0;
  for (const w of k.windows) {
    const end = windowEnd(t, w.windowMs);
    if (t + spreadMs >= end) ms = Math.max(ms, end - t);
  }
  return ms;
}

/**
 * Store unavailable longer than cacheTtlMs (see docs/protocol.md#s4): fail-open (`failOpen`), or
 * fail-static on this replica's share of each limit (limit / replicas). `t` is the store's earliest
 * time and `spreadMs` how much later it may be: while a window may have ended at the store but not
 * at `t`, the closing window's units would be spent in the next one, so nothing is admitted.
 */
export function decideDegraded(
  k: RateKeyState,
  cost: number,
  t: number,
  replicas: number,
  failOpen: boolean,
  table: LocalWindows,
  counts: number[],
  outage: FailStaticOutage,
  spreadMs = 0,
): Decision {
  if (failOpen) {
    k.admitted += cost;
    counts[ALLOW_DEGRADED]!++;
    return allowWithFreshHeaders(k, t);
  }
  const band = boundaryAhead(k, t, spreadMs);
  if (band > 0) {
    k.denied++;
    counts[DENY_DEGRADED]!++;
    return limitedDecision(k, t, band);
  }
  const windows = k.degradedWindows(replicas);
  const e = table.entry(`${k.storeKey}:local`, windows.length, t);
  if (e.seededFor !== outage.since) {
    e.seededFor = outage.since;
    countKnownAdmits(k, windows, e, t, replicas, outage.viewT);
  }
  // A multi-unit cost is admitted whole or not at all: look first, then take.
  let taken = takeDirect(k.alg, windows, e, t, cost === 1 ? 1 : 0);
  const fits = cost === 1 ? taken >= 1 : windows.every((w, i) => free(k.alg, w, e.states[i]!, t) >= cost);
  if (fits && cost !== 1) taken = takeDirect(k.alg, windows, e, t, cost);
  if (fits && taken >= cost) {
    k.admitted += cost;
    e.countedThrough = k.admitted;
    counts[ALLOW_DEGRADED]!++;
    return allowWithFreshHeaders(k, t);
  }
  const ms = longestRetryMs(k.alg, windows, e.states, t, Math.max(0, cost - 1));
  k.denied++;
  counts[DENY_DEGRADED]!++;
  return limitedDecision(k, t, ms);
}

/** Fail-static for a concurrency key: this replica's share of the cap (at least 1), or every slot when failing open. */
export function degradedSlotFree(c: ConcurrencyKeyState, replicas: number, failOpen: boolean): boolean {
  return failOpen || c.active < Math.max(1, Math.ceil(c.max / replicas));
}
