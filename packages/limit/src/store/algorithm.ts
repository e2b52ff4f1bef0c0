import { FIXED_WINDOW, SLIDING_WINDOW, TOKEN_BUCKET } from "./algorithm-code.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "./types.js";

/**
 * Window maths of the three algorithms (see docs/protocol.md#s3-6), shared by MemoryStore, the
 * Limiter's view of the store and (restated in Lua) RedisStore. Times are store ms, fractional allowed.
 * `roll`, `apply` and `applyPast` mutate the state; every other function is pure and reads the state
 * as if it had been rolled to `t` (a view from an earlier reply stays meaningful later).
 */

/** The largest count a counter holds: adds saturate here (exact integers in doubles and in Lua). */
export const COUNT_MAX = Number.MAX_SAFE_INTEGER;

/** Adds two counts, saturating at COUNT_MAX. */
export function saturatingAdd(a: number, b: number): number {
  return Math.min(a + b, COUNT_MAX);
}

/** A window that has never been written: all zeros. */
export function emptyWindow(): WindowState {
  return { idx: 0, cur: 0, prev: 0, tat: 0 };
}

/** Index of the window of length `windowMs` containing `t` (store epoch aligned): 0 for t <= 0. */
export function windowIndex(t: number, windowMs: number): number {
  return t <= 0 ? 0 : Math.floor(t / windowMs);
}

/** Units the window admits: the burst for a token bucket, else the limit. */
export function capacity(alg: AlgorithmCode, spec: WindowSpec): number {
  return alg === TOKEN_BUCKET ? spec.burst : spec.limit;
}

// Emission interval of a token bucket: one unit every `windowMs / limit` ms.
function period(spec: WindowSpec): number {
  return spec.windowMs / spec.limit;
}

/** Moves a counter window forward to `t` (never backwards); a token bucket has nothing to roll. */
export function roll(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number): void {
  if (alg === TOKEN_BUCKET) return;
  const i = windowIndex(t, spec.windowMs);
  if (i <= state.idx) return;
  if (i === state.idx + 1) {
    state.prev = state.cur;
  } else {
    state.prev = 0;
  }
  state.cur = 0;
  state.idx = i;
}

// A rolled copy, so the pure readers never touch the caller's state.
function rolled(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number): WindowState {
  const copy = { idx: state.idx, cur: state.cur, prev: state.prev, tat: state.tat };
  roll(alg, spec, copy, t);
  return copy;
}

/** Units in use at `t`: fixed `cur`; sliding weighted `prev` + `cur`; token bucket the tat backlog. */
export function usage(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number): number {
  if (alg === TOKEN_BUCKET) return (Math.max(state.tat, t) - t) / period(spec);
  const s = rolled(alg, spec, state, t);
  if (alg === FIXED_WINDOW) return s.cur;
  const w = spec.windowMs;
  const pos = Math.min(Math.max(t - s.idx * w, 0), w);
  return s.prev * (1 - pos / w) + s.cur;
}

/** Units still free at `t`: capacity - usage (negative means debt). */
export function free(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number): number {
  return capacity(alg, spec) - usage(alg, spec, state, t);
}

/** Records `n` units at `t`: counters roll then add (saturating); a token bucket pushes its tat. */
export function apply(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number, n: number): void {
  if (alg === TOKEN_BUCKET) {
    const p = period(spec);
    state.tat = Math.min(Math.max(state.tat, t) + n * p, t + spec.burst * p + spec.windowMs);
    return;
  }
  roll(alg, spec, state, t);
  state.cur = saturatingAdd(state.cur, n);
}

/**
 * Records `n` units admitted earlier, at `tHit`: charged to their own window when it is the current
 * (or a later) one; a sliding window's previous window still counts them; anything older is dropped.
 */
export function applyPast(
  alg: AlgorithmCode,
  spec: WindowSpec,
  state: WindowState,
  tHit: number,
  n: number,
): void {
  if (n === 0) return;
  if (alg === TOKEN_BUCKET) {
    apply(alg, spec, state, tHit, n);
    return;
  }
  const i = windowIndex(tHit, spec.windowMs);
  if (i >= state.idx) apply(alg, spec, state, tHit, n);
  else if (i === state.idx - 1 && alg === SLIDING_WINDOW) state.prev = saturatingAdd(state.prev, n);
}

/**
 * Raises a stored window to what a replica saw of it in an earlier reply (`seen`): a store's counts
 * only grow within a window and its tat never falls, so on a store that kept its data this changes
 * nothing, and on one that lost it (restarted empty, flushed, failed over) the counts come back.
 */
export function keepSeen(state: WindowState, seen: WindowState): void {
  if (seen.idx > state.idx) {
    state.idx = seen.idx;
    state.cur = seen.cur;
    state.prev = seen.prev;
  } else if (seen.idx === state.idx) {
    state.cur = Math.max(state.cur, seen.cur);
    state.prev = Math.max(state.prev, seen.prev);
  } else if (seen.idx === state.idx - 1) state.prev = Math.max(state.prev, seen.cur);
  state.tat = Math.max(state.tat, seen.tat);
}

// Whole ms, at least 1; the epsilon keeps float noise from adding a full millisecond.
function ceilMs(d: number): number {
  return Math.max(1, Math.ceil(d - 1e-6));
}

/**
 * Ms to wait from `t` until one more unit fits beside `reserved` units held elsewhere (0: it fits now).
 * Waiting exactly this long leaves at least one free unit whenever reserved <= capacity - 1.
 */
export function retryAfterMs(
  alg: AlgorithmCode,
  spec: WindowSpec,
  state: WindowState,
  t: number,
  reserved: number,
): number {
  const cap = capacity(alg, spec);
  const w = spec.windowMs;
  if (alg === TOKEN_BUCKET) {
    const p = period(spec);
    const tat = Math.max(state.tat, t);
    const slack = (cap - 1 - reserved) * p;
    if (slack < 0) return Math.max(1, tat - t);
    const d = tat - t - slack;
    return d <= 0 ? 0 : ceilMs(d);
  }
  const s = rolled(alg, spec, state, t);
  if (alg === FIXED_WINDOW) {
    return s.cur + reserved + 1 <= cap ? 0 : Math.max(1, (s.idx + 1) * w - t);
  }
  const start = s.idx * w;
  const next = start + w;
  const room = cap - 1 - reserved - s.cur;
  if (room >= 0) {
    if (s.prev === 0) return 0;
    const f = Math.max(0, 1 - room / s.prev);
    const at = start + f * w;
    return at <= t ? 0 : ceilMs(at - t);
  }
  const rn = cap - 1 - reserved;
  if (rn < 0) return ceilMs(next + w - t);
  if (s.cur === 0) return ceilMs(next - t);
  return ceilMs(next + Math.max(0, 1 - rn / s.cur) * w - t);
}

/** Ms from `t` until the window resets (counters: the current window ends; token bucket: tat). */
export function resetMs(alg: AlgorithmCode, spec: WindowSpec, state: WindowState, t: number): number {
  if (alg === TOKEN_BUCKET) return Math.max(0, state.tat - t);
  const i = Math.max(state.idx, windowIndex(t, spec.windowMs));
  return Math.max(0, (i + 1) * spec.windowMs - t);
}
