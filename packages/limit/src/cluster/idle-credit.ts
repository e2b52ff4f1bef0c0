import { usage } from "../store/algorithm.js";
import type { RateKeyState } from "./rate-key.js";
import { CREDIT_TRUST } from "./sync-maths.js";

/** Load of a key at store time `t`: the fullest window, counting admits the store has not seen. */
export function loadFraction(k: RateKeyState, t: number): number {
  const extra = k.localExtra();
  let load = 0;
  for (let i = 0; i < k.windows.length; i++) {
    const cap = k.capacities[i]!;
    load = Math.max(load, (usage(k.alg, k.windows[i]!, k.view.windows[i]!, t) + extra) / Math.max(cap, 1));
  }
  return load;
}

/** Denied since the last sync, or a window more than half full: the key syncs at its own interval. */
export function isBusy(k: RateKeyState, t: number): boolean {
  return k.denied > 0 || loadFraction(k, t) > 0.5;
}

/**
 * Units this replica may hold while the key stays far below its limit: its fullest window, with
 * what the others hold, within half its capacity.
 */
export function idleRoom(k: RateKeyState, t: number): number {
  return (0.5 - loadFraction(k, t)) * Math.max(k.minCapacity, 1) - k.view.reservedOthers;
}

/** Credit far below the limit: `held` units here fit the key's idle room. */
export function creditIdle(k: RateKeyState, held: number, t: number): boolean {
  return held <= idleRoom(k, t);
}

/** Idle credit is leased at most this long. */
export const IDLE_LEASE_CAP_MS = 60_000;

/**
 * Extension (idle credit, docs/protocol.md#s3-2): the lease of credit far below the limit: the key's
 * longest window, at most a minute, at least leaseTtlMs. A key used every few seconds (a client
 * back every 20 s) then admits from credit instead of waiting for a round trip each time, and
 * pushes its admits in one sync.
 */
export function idleLeaseMs(k: RateKeyState, leaseTtlMs: number): number {
  let longest = 0;
  for (const w of k.windows) longest = Math.max(longest, w.windowMs);
  return Math.max(leaseTtlMs, Math.min(IDLE_LEASE_CAP_MS, longest));
}

/**
 * Extension (idle credit, docs/protocol.md#s3-2): idle credit covers the key's demand until the push
 * that renews it, as far as the key stays idle with it; a key used every second then syncs once a
 * lease instead of each time a few seconds' credit runs out.
 */
export function idleTarget(
  k: RateKeyState,
  target: number,
  ewma: number,
  room: number,
  leaseTtlMs: number,
): number {
  const demand = Math.ceil(ewma * CREDIT_TRUST * idleLeaseMs(k, leaseTtlMs));
  return Math.max(target, Math.min(demand, Math.floor(room) - k.waiters));
}
