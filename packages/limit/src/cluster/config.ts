import { randomBytes } from "node:crypto";
import { FIXED_WINDOW, SLIDING_WINDOW, TOKEN_BUCKET } from "../store/algorithm-code.js";
import type { AlgorithmCode, WindowSpec } from "../store/types.js";
import { InvalidOptionError, InvalidPolicyError } from "./errors.js";
import type { LimiterEventListener } from "./events.js";

/** The three window algorithms, as a policy names them. */
export type RateAlgorithm = "fixed_window" | "sliding_window" | "token_bucket";

/**
 * A key's rate limit (see docs/protocol.md#s1-3), camelCase. Every field is optional and `null` means absent, so a
 * parsed `@resil/policy` record (defaults filled, nullable limits) is assignable as it is.
 */
export interface RateLimitConfig {
  /** Default "sliding_window". */
  algorithm?: RateAlgorithm | null;
  requestsPerSecond?: number | null;
  requestsPerMinute?: number | null;
  requestsPerHour?: number | null;
  /** Token bucket capacity; absent or 0: the limit of each window. */
  burstSize?: number | null;
  /** Default true; false makes the key unlimited. */
  enabled?: boolean | null;
  /** How long a store view is trusted, and how long a failing store is tolerated: default 200, 50..60000. */
  cacheTtlMs?: number | null;
  /** Longest wait of a request on a sync: default 10, 1..5000. */
  redisTimeoutMs?: number | null;
  /** Share of the free budget one grant may split across replicas: default 0.1; >= 1 means local-only. */
  localAllowance?: number | null;
  /** Sync period of a busy key: default 100, 10..10000. */
  syncIntervalMs?: number | null;
}

/** The tuning every key carries (rate and concurrency), sanitized. */
export interface KeyTuning {
  cacheTtlMs: number;
  redisTimeoutMs: number;
  localAllowance: number;
  syncIntervalMs: number;
}

/** A sanitized, active rate config: at least one window. */
export interface RatePolicy extends KeyTuning {
  algorithm: RateAlgorithm;
  alg: AlgorithmCode;
  /** Second, minute, hour, in that order; absent windows dropped. */
  windows: WindowSpec[];
}

export const RATE_DEFAULTS: Readonly<KeyTuning> = Object.freeze({
  cacheTtlMs: 200,
  redisTimeoutMs: 10,
  localAllowance: 0.1,
  syncIntervalMs: 100,
});

const ALGORITHM_CODES: Record<RateAlgorithm, AlgorithmCode> = {
  fixed_window: FIXED_WINDOW,
  sliding_window: SLIDING_WINDOW,
  token_bucket: TOKEN_BUCKET,
};

const WINDOW_FIELDS = [
  ["requestsPerSecond", 1_000],
  ["requestsPerMinute", 60_000],
  ["requestsPerHour", 3_600_000],
] as const;

// Out-of-range tuning is clamped (lenient, as the original): only limits are errors.
function clamp(value: number | null | undefined, lo: number, hi: number, fallback: number): number {
  if (typeof value !== "number" || Number.isNaN(value)) return fallback;
  return Math.min(hi, Math.max(lo, value));
}

/** Tuning of a key from its rate config (even a disabled one) or the defaults, sanitized (see docs/protocol.md#s1-3). */
export function keyTuning(cfg: RateLimitConfig | null | undefined): KeyTuning {
  const a = cfg?.localAllowance;
  return {
    cacheTtlMs: clamp(cfg?.cacheTtlMs, 50, 60_000, RATE_DEFAULTS.cacheTtlMs),
    redisTimeoutMs: clamp(cfg?.redisTimeoutMs, 1, 5_000, RATE_DEFAULTS.redisTimeoutMs),
    localAllowance: typeof a === "number" && Number.isFinite(a) && a > 0 ? a : RATE_DEFAULTS.localAllowance,
    syncIntervalMs: clamp(cfg?.syncIntervalMs, 10, 10_000, RATE_DEFAULTS.syncIntervalMs),
  };
}

// A limit is a finite count >= 0 (fractions floored); null/undefined/0 mean "no such window".
function count(field: string, value: number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidPolicyError(field, `must be a finite number >= 0 or null, got ${String(value)}`);
  }
  return Math.min(Math.floor(value), Number.MAX_SAFE_INTEGER);
}

/**
 * Sanitizes a rate config (see docs/protocol.md#s1-3): `undefined` when it limits nothing (absent, disabled, or no
 * window). Throws InvalidPolicyError for a negative, NaN or infinite limit or an unknown algorithm.
 */
export function ratePolicy(cfg: RateLimitConfig | null | undefined): RatePolicy | undefined {
  if (cfg === null || cfg === undefined) return undefined;
  const algorithm = cfg.algorithm ?? "sliding_window";
  // Own keys only: "constructor" or "toString" must not resolve through Object.prototype.
  const alg = Object.hasOwn(ALGORITHM_CODES, algorithm) ? ALGORITHM_CODES[algorithm] : undefined;
  if (alg === undefined) {
    throw new InvalidPolicyError("algorithm", `must be fixed_window, sliding_window or token_bucket`);
  }
  const burstSize = count("burstSize", cfg.burstSize);
  const windows: WindowSpec[] = [];
  for (const [field, windowMs] of WINDOW_FIELDS) {
    const limit = count(field, cfg[field]);
    if (limit === 0) continue;
    windows.push({ limit, windowMs, burst: alg === TOKEN_BUCKET && burstSize > 0 ? burstSize : limit });
  }
  if (cfg.enabled === false || windows.length === 0) return undefined;
  return { algorithm, alg, windows, ...keyTuning(cfg) };
}

/** Whether two sanitized policies are the same in every field. */
export function samePolicy(a: RatePolicy, b: RatePolicy): boolean {
  return (
    a.alg === b.alg &&
    sameTuning(a, b) &&
    a.windows.length === b.windows.length &&
    a.windows.every((w, i) => {
      const o = b.windows[i];
      return o !== undefined && o.limit === w.limit && o.windowMs === w.windowMs && o.burst === w.burst;
    })
  );
}

export function sameTuning(a: KeyTuning, b: KeyTuning): boolean {
  return (
    a.cacheTtlMs === b.cacheTtlMs &&
    a.redisTimeoutMs === b.redisTimeoutMs &&
    a.localAllowance === b.localAllowance &&
    a.syncIntervalMs === b.syncIntervalMs
  );
}

/** A concurrency cap: null/undefined/0 mean none; negative, NaN or infinite is an error; fractions floor. */
export function concurrencyCap(maxConcurrent: number | null | undefined): number {
  return count("maxConcurrent", maxConcurrent);
}

/** What a Limiter does when its store has been failing longer than `cacheTtlMs`. */
export type StoreUnavailableMode = "localShare" | "allow";

/** Options of a Limiter (see docs/protocol.md#s1-2). Every field has a default. */
export interface LimiterOptions {
  /** Namespace of the store keys and metric labels: one per replica set. Default "resil". */
  service?: string;
  /** This replica's id. Default `<HOSTNAME | POD_NAME | "replica">-<8 random hex>`. */
  podId?: string;
  /** Store down longer than cacheTtlMs: enforce limit / replicas locally ("localShare", default) or admit all ("allow"). */
  onStoreUnavailable?: StoreUnavailableMode;
  /** "sync" (default): the store admits the last units one by one; "local": one unreserved unit more per replica. */
  lastMile?: "sync" | "local";
  /** Heartbeat period; a replica is live for 3 heartbeats. Default 1000. */
  heartbeatMs?: number;
  /** Sync period of a quiet key. Default 1000. */
  slowSyncMs?: number;
  /** Life of a rate reservation in the store. Default 3000 (concurrency leases live at least 5000). */
  leaseTtlMs?: number;
  /** Deadline of one store round trip. Default 1000. */
  roundTimeoutMs?: number;
  /** Scan period of the background loop. Default 20. */
  tickMs?: number;
  /** Keys per round trip. Default 512. */
  maxKeysPerRound?: number;
  /**
   * Replicas expected in the service (from the orchestrator): the replica count until the store's
   * registry first answers, so replicas that never reach the store share the limit. Default 1.
   */
  expectedReplicas?: number;
  /** Called when the store turns failing or recovers, and on each overrun. A listener that throws is ignored. */
  onEvent?: LimiterEventListener;
}

export type ResolvedOptions = Required<Omit<LimiterOptions, "onEvent">> & {
  onEvent: LimiterEventListener | undefined;
};

export const LIMITER_DEFAULTS = Object.freeze({
  service: "resil",
  onStoreUnavailable: "localShare",
  lastMile: "sync",
  heartbeatMs: 1_000,
  slowSyncMs: 1_000,
  leaseTtlMs: 3_000,
  roundTimeoutMs: 1_000,
  tickMs: 20,
  maxKeysPerRound: 512,
  expectedReplicas: 1,
} as const);

/** Longest delay a Node timer holds (2^31 - 1 ms, about 24.8 days); timer and lease options are clamped to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `<HOSTNAME | POD_NAME | "replica">-<8 lowercase hex>`. */
export function defaultPodId(): string {
  const host = process.env.HOSTNAME || process.env.POD_NAME || "replica";
  return `${host}-${randomBytes(4).toString("hex")}`;
}

function positive(field: keyof LimiterOptions, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionError(field, `must be a finite number > 0, got ${String(value)}`);
  }
  return value;
}

// Timer and lease options: a Node timer overflows past 2^31 - 1 ms (it fires at once), and a lease
// that large would overflow the Lua scripts' integer TTLs; below 1 ms a timer is 1 ms anyway.
function duration(field: keyof LimiterOptions, value: number | undefined, fallback: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, positive(field, value, fallback)));
}

function replicaCount(value: number | undefined): number {
  if (value === undefined) return LIMITER_DEFAULTS.expectedReplicas;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError("expectedReplicas", `must be a whole number >= 1, got ${String(value)}`);
  }
  return value;
}

function listenerOf(value: LimiterEventListener | undefined): LimiterEventListener | undefined {
  if (value !== undefined && typeof value !== "function") {
    throw new InvalidOptionError("onEvent", "must be a function");
  }
  return value;
}

function text(field: keyof LimiterOptions, value: string | undefined, fallback: () => string): string {
  if (value === undefined) return fallback();
  if (typeof value !== "string" || value.length === 0) {
    throw new InvalidOptionError(field, "must be a non-empty string");
  }
  return value;
}

// A pod id is a field name in the store's hashes: `w<n>` would be a window's field, `q` the ticket
// counter, `L:<pod>` and `Q:<pod>` another pod's lease and turn, so a release of such a pod would
// delete data that is not its own.
function podIdOf(value: string | undefined): string {
  const pod = text("podId", value, defaultPodId);
  if (/^w\d+$/.test(pod) || pod === "q" || /^[LQP]:/.test(pod)) {
    throw new InvalidOptionError(
      "podId",
      `${JSON.stringify(pod)} would clash with the store's own fields (w<n>, q, L:<pod>, Q:<pod>, P:<id>:<pod>)`,
    );
  }
  return pod;
}

/** Fills the defaults and rejects out-of-range options with InvalidOptionError. */
export function resolveOptions(options: LimiterOptions = {}): ResolvedOptions {
  const { onStoreUnavailable = LIMITER_DEFAULTS.onStoreUnavailable, lastMile = LIMITER_DEFAULTS.lastMile } =
    options;
  if (onStoreUnavailable !== "localShare" && onStoreUnavailable !== "allow") {
    throw new InvalidOptionError("onStoreUnavailable", `must be "localShare" or "allow"`);
  }
  if (lastMile !== "sync" && lastMile !== "local") {
    throw new InvalidOptionError("lastMile", `must be "sync" or "local"`);
  }
  return {
    service: text("service", options.service, () => LIMITER_DEFAULTS.service),
    podId: podIdOf(options.podId),
    onStoreUnavailable,
    lastMile,
    heartbeatMs: duration("heartbeatMs", options.heartbeatMs, LIMITER_DEFAULTS.heartbeatMs),
    slowSyncMs: duration("slowSyncMs", options.slowSyncMs, LIMITER_DEFAULTS.slowSyncMs),
    leaseTtlMs: duration("leaseTtlMs", options.leaseTtlMs, LIMITER_DEFAULTS.leaseTtlMs),
    roundTimeoutMs: duration("roundTimeoutMs", options.roundTimeoutMs, LIMITER_DEFAULTS.roundTimeoutMs),
    tickMs: duration("tickMs", options.tickMs, LIMITER_DEFAULTS.tickMs),
    maxKeysPerRound: Math.max(
      1,
      Math.floor(positive("maxKeysPerRound", options.maxKeysPerRound, LIMITER_DEFAULTS.maxKeysPerRound)),
    ),
    expectedReplicas: replicaCount(options.expectedReplicas),
    onEvent: listenerOf(options.onEvent),
  };
}
