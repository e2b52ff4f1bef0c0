import { FIXED_WINDOW } from "./algorithm-code.js";
import { type Grant, grantStep } from "./grant.js";
import type { AlgorithmCode } from "./types.js";

/**
 * Fair shares for mixed costs (docs/protocol.md#s3-9). A request of cost c needs c units at once;
 * cost-1 requests would take the units one by one as they free. An ask with a waiting request of
 * more than one unit (`head`) makes the store keep that many units free: the key's *pool* (Redis
 * field `h` = `size:expiry`), live a third of the lease from the last such ask. An ask with a smaller
 * head leaves the pool free, as it leaves others' leases; one with a head as large may take it.
 */

/** A waiting request of at least this many units keeps a pool. */
export const POOL_MIN_HEAD = 2;

/** Whether an ask with `head` leaves a pool of `pool` units free (counted with the leases of others). */
export function leavesPool(head: number, pool: number): boolean {
  return pool > 0 && head < pool;
}

/**
 * Whether the pool is left free, given what is free beside others' leases (`avail`): a fixed window
 * frees nothing before it ends, so a pool it cannot hold now is not kept (its last units go to smaller
 * requests); a sliding window or a token bucket frees units as time passes, so the pool fills.
 */
export function poolFits(alg: AlgorithmCode, avail: number, pool: number): boolean {
  return alg !== FIXED_WINDOW || avail >= pool;
}

/** After an ask whose head may take the pool, the pool is its head's size, live a third of the lease. */
export function setsPool(head: number, pool: number): boolean {
  return head >= POOL_MIN_HEAD && !leavesPool(head, pool);
}

/**
 * The grant step with a pool (`pool` 0: none) and the ask's largest waiting request (`head`); with
 * neither it is `grantStep`. An ask that leaves the pool gets credit ahead (`granted`) only from what
 * is free beyond one more pool, so leases spent by smaller requests do not take the next large
 * request's units either. Waiting requests are admitted direct from all that is free to the ask; when
 * that falls short of a head that may take the pool, only the smaller requests waiting beside it are
 * (a part of a large request would be charged and left unused).
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
  let direct = need > granted && left >= 1 ? Math.min(need - granted, left) : 0;
  if (setsPool(head, pool) && kept + granted + direct < head)
    direct = Math.min(direct, Math.max(0, need - head));
  return { granted, direct };
}
