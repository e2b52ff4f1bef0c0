/**
 * The Store contract: what one sync round sends and what it gets back. `MemoryStore` and `RedisStore`
 * implement it with identical semantics (see docs/protocol.md#s3-4 to #s3-8 and #s5).
 * All times are store milliseconds (Unix ms of the store's clock, fractional allowed).
 */

/** Algorithm codes as they travel to the store: fixed window 0, sliding window 1, token bucket 2. */
export type AlgorithmCode = 0 | 1 | 2;

/** One window of a rate limit: `limit` per `windowMs`; `burst` is the token-bucket capacity (else = limit). */
export interface WindowSpec {
  limit: number;
  windowMs: number;
  burst: number;
}

/** A window's stored state: counters for fixed/sliding windows, `tat` (theoretical arrival time) for GCRA. */
export interface WindowState {
  idx: number;
  cur: number;
  prev: number;
  tat: number;
}

/** Push admitted hits for one rate key and ask for credit (the rate script's arguments). */
export interface RateRequest {
  /** Store key, `rl2:{<service>:<subject>}:<hash16>`. */
  key: string;
  alg: AlgorithmCode;
  windows: WindowSpec[];
  pod: string;
  /** Hits admitted since the last push, charged at the store's now. */
  hits: number;
  /** Hits admitted before the last window boundary, charged at `tOld`. */
  hitsOld: number;
  tOld: number;
  /** Credit this replica still holds and keeps (not yet spent). */
  unused: number;
  /** New credit wanted. */
  want: number;
  /** Requests waiting right now: admitted directly from what is left when the grant cannot cover them. */
  need: number;
  /**
   * Extension: with requests waiting, credit this replica may take beyond the fair share (its share of
   * what frees in one pacing interval), so an overloaded replica asks about once per pacing interval,
   * not once per freed unit; older tickets then hold this much each. 0 (or absent): the plain grant step of docs/protocol.md#s3-5.
   */
  batch?: number;
  /**
   * Extension (fair shares for mixed costs): the largest cost among the requests waiting (0 or 1:
   * none above one unit). Left short of it, the store keeps that many units free for the next ask
   * with a waiting request as large (any replica's); smaller asks leave them.
   */
  head?: number;
  /**
   * Extension (idempotent rounds): names this key state's running total of pushed units, unique per
   * replica instance and key. With it, the store remembers `pushTotal` (field `P:<pushId>:<pod>`, for
   * the lease's life) and does not charge twice units a resent round already pushed. Absent or empty:
   * every hit is charged.
   */
  pushId?: string;
  /** Units pushed by this key state so far, this request's hits and hitsOld included. */
  pushTotal?: number;
  /**
   * Extension (a store that lost its data): the key's windows as this replica's last reply showed them,
   * one per window. The store raises its windows to them (`keepSeen`): no change on a store that kept
   * its data, the counts back on one restarted empty. Absent: nothing is raised.
   */
  seen?: WindowState[];
  /** min(localAllowance, 1). */
  allowance: number;
  replicas: number;
  leaseTtlMs: number;
}

export interface RateReply {
  /** The store time this reply was computed at. */
  now: number;
  kept: number;
  /** Signed: capacity - usage - others' leases, floored (negative means debt). */
  avail: number;
  granted: number;
  direct: number;
  /** Credit other replicas hold in live leases. */
  others: number;
  windows: WindowState[];
}

/** Report the absolute number of active slots of one concurrency key and ask for more. */
export interface ConcurrencyRequest {
  /** Store key, `cc3:{<service>:<subject>}`. */
  key: string;
  pod: string;
  active: number;
  unused: number;
  want: number;
  need: number;
  max: number;
  allowance: number;
  replicas: number;
  leaseTtlMs: number;
}

export interface ConcurrencyReply {
  now: number;
  kept: number;
  granted: number;
  direct: number;
  others: number;
}

/** Register this replica as live (or leave) and count the live replicas of the service. */
export interface HeartbeatRequest {
  /** Registry key, `rl2:{<service>}:pods`. */
  key: string;
  pod: string;
  /** A replica is live while its last heartbeat is younger than this (3 x heartbeatMs). */
  windowMs: number;
  leave: boolean;
}

export interface HeartbeatReply {
  now: number;
  /** Live replicas of the service, at least 1. */
  replicas: number;
}

/** Drop a replica's lease fields (rate and concurrency) from one store key. */
export interface Release {
  key: string;
  pod: string;
}

/** Everything one round trip carries, applied in this order: releases, rates, concurrency, heartbeat. */
export interface RoundRequest {
  /** Store time to use; absent (or <= 0) means the store's own clock (Redis TIME). */
  now?: number;
  releases: Release[];
  rates: RateRequest[];
  concurrency: ConcurrencyRequest[];
  heartbeat?: HeartbeatRequest;
}

export interface RoundReply {
  /** One reply per rate request, in order. */
  rates: RateReply[];
  /** One reply per concurrency request, in order. */
  concurrency: ConcurrencyReply[];
  heartbeat?: HeartbeatReply;
}

/** Where replicas meet: one method, one round trip per sync round. Rejects when the store fails. */
export interface Store {
  round(request: RoundRequest): Promise<RoundReply>;
}
