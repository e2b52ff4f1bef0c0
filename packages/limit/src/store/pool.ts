import { FIXED_WINDOW } from "./algorithm-code.js";
import { type Grant, grantStep } from "./grant.js";
import type { AlgorithmCode } from "./types.js";

/**
 * Fair shares for mixed costs (docs/protocol.md#s3-9). A request of cost c needs c units at once;
 * cost-1 requests would take the units one by one as they free. An ask with a waiting request of
 * more than one unit (`head`) makes the store keep that many units free: the key's *pool* (Redis
 * field `h` = `size:expiry`), live a third of the lease from the last such ask. An ask with a smaller
 * head leaves the pool free, as it leaves others' leases, with every algorithm and also when fewer
 * units are free (a fixed window's last units wait for a large request: given to smaller ones they
 * would take more than their share); one with a head as large may take it, and so may one-unit
 * requests a Pacer keeps within their share (`SHARE_HEAD`).
 */

/** A waiting request of at least this many units keeps a pool. */
export const POOL_MIN_HEAD = 2;

/**
 * The `head` of an ask for one-unit requests that a `Pacer` keeps within their share of the admitted
 * units (cluster/cost-shares.ts): such an ask is served from all that is free, pool included.
 */
export const SHARE_HEAD = 1;

/** Whether an ask with `head` leaves a pool of `pool` units free (counted with the leases of others). */
export function leavesPool(head: number, pool: number): boolean {
  return pool > 0 && head < pool && head !== SHARE_HEAD;
}

/**
 * Whether an ask's head may take the pool (or start one): a large request waiting, no larger pool.
 * Such an ask leaves no units for older tickets (store/turns.ts): the pool is its turn, and the
 * replicas holding them wait for units beyond the pool, or for the pool too.
 */
export function takesPool(head: number, pool: number): boolean {
  return head >= POOL_MIN_HEAD && !leavesPool(head, pool);
}

/**
 * After an ask whose head may take the pool, the pool is its head's size, live a third of the lease.
 * A fixed window frees nothing before it ends: there only a head that was covered keeps the pool (one
 * left short could not be covered before the window ends, so its units stay with smaller requests).
 */
export function setsPool(alg: AlgorithmCode, head: number, pool: number, covered: number): boolean {
  return takesPool(head, pool) && (alg !== FIXED_WINDOW || covered >= head);
}

/**
 * The grant step with a pool (`pool` 0: none) and the ask's largest waiting request (`head`); with
 * neither it is `grantStep`. An ask that leaves the pool gets credit ahead (`granted`) only from what
 * is free beyond one more pool, so leases spent by smaller requests do not take the next large
 * request's units either. Waiting requests are admitted direct from all that is free to the ask; when
 * that falls short of a head that may take the pool, only the smaller requests waiting beside it are
 * (a part of a large request would be charged and left unused), and no credit ahead is granted.
 */
export function poolGrantStep(
  free: number,
  want: number,
  need: number,
  allowance: number,
  replicas: number,
  batch: number,
  head: number,
  pool: number,
  kept: number,
): Grant {
  if (pool === 0 && head < POOL_MIN_HEAD) return grantStep(free, want, need, allowance, replicas, batch);
  const ahead = leavesPool(head, pool) ? free - pool : free;
  const { granted } = grantStep(ahead, want, need, allowance, replicas, batch);
  const left = Math.floor(free) - granted;
  const direct = need > granted && left >= 1 ? Math.min(need - granted, left) : 0;
  // Left short, its replica gets no credit ahead either: held in a lease, those units would wait
  // there, out of the reach of the next large request that asks (and of smaller requests queued
  // behind this one on a Pacer), instead of filling the pool.
  if (takesPool(head, pool) && kept + granted + direct < head)
    return { granted: 0, direct: Math.min(direct, Math.max(0, need - head)) };
  return { granted, direct };
}
