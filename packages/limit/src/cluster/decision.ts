/** Rate-limit headers of a decision (see docs/protocol.md#s1-5). */
export interface RateHeaders {
  /** Limit of the head window (the lowest limit per ms). */
  limit: number;
  /** Units left: the minimum across windows (between syncs, only this replica's admits count down). */
  remaining: number;
  /** When the head window resets: absolute Unix time in whole seconds. */
  reset: number;
  /** Whole seconds (>= 1) to wait before retrying: denials only. */
  retryAfter?: number;
}

/** Why a request was denied: the limit is reached, or its cost exceeds the limit itself (it never fits). */
export type DenyReason = "limited" | "costExceedsLimit";

export type Decision =
  | { kind: "unlimited" }
  | { kind: "allow"; headers: RateHeaders }
  | { kind: "deny"; headers: RateHeaders; reason: DenyReason };

/** The one `unlimited` decision (frozen, shared). */
export const UNLIMITED: Decision = Object.freeze({ kind: "unlimited" });

/** A held concurrency slot; releasing it (once, idempotent) frees it locally. */
export interface Slot {
  release(): void;
  [Symbol.dispose](): void;
}

export type AcquireResult =
  | { kind: "unlimited" }
  | { kind: "acquired"; slot: Slot }
  | { kind: "denied"; max: number; retryAfter: number };

/** How each decision was reached (see docs/protocol.md#s1-6). */
export type Outcome =
  | "allowLocal"
  | "allowSync"
  | "allowCold"
  | "allowOverrun"
  | "allowDegraded"
  | "denyLocal"
  | "denySync"
  | "denyDegraded";

/** Every outcome, in counter order. */
export const OUTCOMES: readonly Outcome[] = Object.freeze([
  "allowLocal",
  "allowSync",
  "allowCold",
  "allowOverrun",
  "allowDegraded",
  "denyLocal",
  "denySync",
  "denyDegraded",
]);

// Counter slots, in OUTCOMES order; the hot path indexes an array with these.
export const ALLOW_LOCAL = 0;
export const ALLOW_SYNC = 1;
export const ALLOW_COLD = 2;
export const ALLOW_OVERRUN = 3;
export const ALLOW_DEGRADED = 4;
export const DENY_LOCAL = 5;
export const DENY_SYNC = 6;
export const DENY_DEGRADED = 7;
