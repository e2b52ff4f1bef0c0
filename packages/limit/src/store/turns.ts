/**
 * Turns (extension to docs/protocol.md#s3-5): a replica that asked for units and got none
 * takes a ticket; every replica must leave one unit per older ticket, so freed units reach the
 * replicas that have waited longest instead of whoever syncs most often (no starvation of a replica
 * with little traffic on a sliding window or a token bucket).
 */

/** A waiting replica's place: its ticket (lower goes first) and when it gives the place up (store ms). */
export interface Turn {
  ticket: number;
  expiry: number;
}

/** A waiting replica keeps its place this long after its last unanswered ask: a third of the lease. */
export function turnTtlMs(leaseTtlMs: number): number {
  return leaseTtlMs / 3;
}

/** Drops expired turns; returns how many other replicas hold a ticket older than `pod`'s. */
export function turnsAhead(turns: Map<string, Turn>, pod: string, now: number): number {
  const own = turns.get(pod);
  const mine = own !== undefined && own.expiry > now ? own.ticket : Number.POSITIVE_INFINITY;
  let ahead = 0;
  for (const [owner, turn] of turns) {
    if (turn.expiry <= now) turns.delete(owner);
    else if (turn.ticket < mine && owner !== pod) ahead++;
  }
  return ahead;
}

/**
 * Served, so out of line: granted its batch (or, without one, anything), or, with requests waiting,
 * all the credit it asked for and every waiting request admitted. A replica whose view was only
 * stale asks for less than a batch and is not left short by getting it.
 */
export function served(batch: number, want: number, need: number, granted: number, direct: number): boolean {
  if (granted + direct >= Math.max(1, batch)) return true;
  return need > 0 && granted >= want && granted + direct >= need;
}
