/** Why a hop was not tried. */
export type Skip =
  | { kind: "breakerOpen"; retryInMs: number }
  | { kind: "rateLimited"; retryAfterMs: number }
  | { kind: "ineligible"; reason: string };

/** What one hop did. */
export type Hop<T, E = unknown> =
  | { kind: "served"; value: T }
  | { kind: "skipped"; skip: Skip }
  | { kind: "failed"; error: E };

export interface HopRecord<T, E = unknown> {
  endpoint: string;
  hop: Hop<T, E>;
}

export interface EndpointError<E = unknown> {
  endpoint: string;
  error: E;
}

/** Why a chain ended without a value. */
export type ChainError<E = unknown> =
  /** A failure the trigger said not to fall back on (for example the caller's own mistake). */
  | { kind: "surfaced"; endpoint: string; error: E }
  /**
   * Every candidate was tried or skipped (or the deadline stopped the chain after its first hop).
   * `rateLimitedMs` is the shortest wait, present only when every hop was a rate-limited skip.
   */
  | { kind: "exhausted"; first?: EndpointError<E>; last?: EndpointError<E>; rateLimitedMs?: number }
  /** The deadline had passed before the first hop. */
  | { kind: "deadlineExceeded" }
  /** The caller's signal aborted (extension); `reason` is the signal's. */
  | { kind: "aborted"; reason: unknown };

export type ChainResult<T, E = unknown> =
  | { ok: true; endpoint: string; value: T }
  | { ok: false; error: ChainError<E> };

/** A chain's result and the record of every hop, in order. */
export class ChainOutcome<T, E = unknown> {
  constructor(
    readonly result: ChainResult<T, E>,
    readonly hops: readonly HopRecord<T, E>[],
  ) {}

  /** Served by an endpoint other than the first hop's. */
  fellBack(): boolean {
    const first = this.hops[0];
    return this.result.ok && first !== undefined && first.endpoint !== this.result.endpoint;
  }
}
