import { COUNT_MAX } from "./algorithm.js";
import { FIXED_WINDOW, SLIDING_WINDOW, TOKEN_BUCKET } from "./algorithm-code.js";
import { StoreRequestError } from "./errors.js";
import type { ConcurrencyRequest, HeartbeatRequest, RateRequest, WindowSpec, WindowState } from "./types.js";

/**
 * Requests as every store reads them: counts are whole, non-negative and saturated (a negative or
 * fractional count is read like the original's unsigned integers), and structural fields are checked.
 * MemoryStore and RedisStore both normalise with these functions, so they see identical arguments.
 */

/** A count as the store reads it: NaN or <= 0 -> 0, else floor, at most COUNT_MAX. */
export function toCount(x: number): number {
  return x > 0 ? Math.min(Math.floor(x), COUNT_MAX) : 0;
}

// An allowance is a fraction of the free budget: NaN reads as 0, anything above 1 as 1.
function toAllowance(x: number): number {
  return x > 0 ? Math.min(x, 1) : 0;
}

function requireName(field: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new StoreRequestError(field, `must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function requirePositive(field: string, value: number, finite: boolean): number {
  if (!(value > 0) || (finite && !Number.isFinite(value))) {
    throw new StoreRequestError(field, `must be a positive${finite ? " finite" : ""} number, got ${value}`);
  }
  return value;
}

// A push id enters a hash field name: no colon (the field's separator), at most 64 characters.
function pushIdOf(id: string | undefined): string {
  if (id === undefined || id === "") return "";
  if (typeof id !== "string" || id.length > 64 || id.includes(":")) {
    throw new StoreRequestError(
      "pushId",
      `must be a string of at most 64 characters without ':', got ${JSON.stringify(id)}`,
    );
  }
  return id;
}

/**
 * Units of a push the store has already charged (idempotent rounds): `remembered` is the push total
 * it recorded for this push id; the request's hits start at pushTotal − hits − hitsOld. Taken from
 * the older hits first. Returns the hits and old hits left to charge.
 */
export function unchargedHits(
  remembered: number | undefined,
  pushTotal: number,
  hits: number,
  hitsOld: number,
): { hits: number; hitsOld: number } {
  if (remembered === undefined) return { hits, hitsOld };
  const base = pushTotal - hits - hitsOld;
  const seen = Math.min(Math.max(0, remembered - base), hits + hitsOld);
  const fromOld = Math.min(seen, hitsOld);
  return { hits: hits - (seen - fromOld), hitsOld: hitsOld - fromOld };
}

// A window state the replica saw, as replies carry them: whole non-negative index and counts, a
// finite non-negative tat. Checked, not copied: a replica sends one with most syncs.
function isSeenWindow(w: WindowState): boolean {
  return (
    Number.isSafeInteger(w?.idx) &&
    w.idx >= 0 &&
    Number.isSafeInteger(w.cur) &&
    w.cur >= 0 &&
    Number.isSafeInteger(w.prev) &&
    w.prev >= 0 &&
    Number.isFinite(w.tat) &&
    w.tat >= 0
  );
}

function seenOf(seen: readonly WindowState[] | undefined, windows: number): WindowState[] | undefined {
  if (!seen || (Array.isArray(seen) && seen.length === 0)) return undefined;
  if (!Array.isArray(seen) || seen.length !== windows) {
    throw new StoreRequestError(
      "seen",
      `must list one state per window (${windows}), got ${JSON.stringify(seen)}`,
    );
  }
  for (let i = 0; i < seen.length; i++) {
    if (!isSeenWindow(seen[i]!)) {
      throw new StoreRequestError(
        `seen[${i}]`,
        `must have a whole idx, cur and prev >= 0 and a finite tat >= 0, got ${JSON.stringify(seen[i])}`,
      );
    }
  }
  return seen as WindowState[];
}

/** How a store reads leases: `finite` stores (Redis) cannot keep a lease forever. */
export interface NormalizeOptions {
  finiteLease: boolean;
}

// the field's name is built only for the error: every sync of a key checks its windows
function requireWindowValue(i: number, name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) requirePositive(`windows[${i}].${name}`, value, true);
}

function normalizeWindows(alg: number, windows: readonly WindowSpec[]): WindowSpec[] {
  if (!Array.isArray(windows) || windows.length === 0) {
    throw new StoreRequestError("windows", "must list at least one window");
  }
  let normal = true;
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    requireWindowValue(i, "limit", w.limit);
    requireWindowValue(i, "windowMs", w.windowMs);
    if (alg === TOKEN_BUCKET) requireWindowValue(i, "burst", w.burst);
    else if (!Number.isFinite(w.burst)) normal = false;
  }
  // the limiter sends the same windows with every sync of a key: kept as they are when nothing changes
  if (normal) return windows as WindowSpec[];
  return windows.map((w) => ({
    limit: w.limit,
    windowMs: w.windowMs,
    burst: Number.isFinite(w.burst) ? w.burst : w.limit,
  }));
}

/** A rate request with every count whole and every field checked. */
export function normalizeRate(req: RateRequest, opts: NormalizeOptions): RateRequest {
  if (req.alg !== FIXED_WINDOW && req.alg !== SLIDING_WINDOW && req.alg !== TOKEN_BUCKET) {
    throw new StoreRequestError("alg", `must be 0 (fixed), 1 (sliding) or 2 (token bucket), got ${req.alg}`);
  }
  const hitsOld = toCount(req.hitsOld);
  if (hitsOld > 0 && !Number.isFinite(req.tOld)) {
    throw new StoreRequestError("tOld", `must be a finite time when hitsOld > 0, got ${req.tOld}`);
  }
  const key = requireName("key", req.key);
  const windows = normalizeWindows(req.alg, req.windows);
  const pod = requireName("pod", req.pod);
  const tOld = hitsOld > 0 ? req.tOld : 0;
  const pushId = pushIdOf(req.pushId);
  const seen = seenOf(req.seen, req.windows.length);
  const leaseTtlMs = requirePositive("leaseTtlMs", req.leaseTtlMs, opts.finiteLease);
  const hits = toCount(req.hits);
  const unused = toCount(req.unused);
  const want = toCount(req.want);
  const need = toCount(req.need);
  const batch = toCount(req.batch ?? 0);
  const head = toCount(req.head ?? 0);
  const pushTotal = toCount(req.pushTotal ?? 0);
  const allowance = toAllowance(req.allowance);
  const replicas = toCount(req.replicas);
  // the limiter's own requests are normal already: kept, so a round does not copy each of them
  if (
    windows === req.windows &&
    hits === req.hits &&
    hitsOld === req.hitsOld &&
    tOld === req.tOld &&
    unused === req.unused &&
    want === req.want &&
    need === req.need &&
    batch === req.batch &&
    head === req.head &&
    pushId === req.pushId &&
    pushTotal === req.pushTotal &&
    seen === req.seen &&
    allowance === req.allowance &&
    replicas === req.replicas
  )
    return req;
  const { alg } = req;
  return {
    key,
    alg,
    windows,
    pod,
    hits,
    hitsOld,
    tOld,
    unused,
    want,
    need,
    batch,
    head,
    pushId,
    pushTotal,
    seen,
    allowance,
    replicas,
    leaseTtlMs,
  };
}

/** A concurrency report with every count whole and every field checked. */
export function normalizeConcurrency(req: ConcurrencyRequest, opts: NormalizeOptions): ConcurrencyRequest {
  return {
    key: requireName("key", req.key),
    pod: requireName("pod", req.pod),
    active: toCount(req.active),
    unused: toCount(req.unused),
    want: toCount(req.want),
    need: toCount(req.need),
    max: toCount(req.max),
    allowance: toAllowance(req.allowance),
    replicas: toCount(req.replicas),
    leaseTtlMs: requirePositive("leaseTtlMs", req.leaseTtlMs, opts.finiteLease),
  };
}

/** A heartbeat with its fields checked. */
export function normalizeHeartbeat(req: HeartbeatRequest): HeartbeatRequest {
  return {
    key: requireName("key", req.key),
    pod: requireName("pod", req.pod),
    windowMs: requirePositive("windowMs", req.windowMs, true),
    leave: req.leave === true,
  };
}

/** The largest window of a rate key: its hash lives 2 x that + the lease + 1 s past the last sync. */
export function rateKeyTtlMs(windows: readonly WindowSpec[], leaseTtlMs: number): number {
  let largest = 0;
  for (const w of windows) largest = Math.max(largest, w.windowMs);
  return Math.floor(2 * largest + leaseTtlMs + 1000);
}
