import { free, resetMs, retryAfterMs } from "../store/algorithm.js";
import type { AlgorithmCode, WindowSpec, WindowState } from "../store/types.js";
import type { Decision, RateHeaders } from "./decision.js";
import type { RateKeyState } from "./rate-key.js";

/** Rate-limit headers of a key's decisions (see docs/protocol.md#s1-5), from its store view. */

/** Units left at store time `t` across every window, beside `extra` admits the store has not seen. */
export function remainingAt(k: RateKeyState, t: number, extra: number): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < k.windows.length; i++) {
    least = Math.min(least, free(k.alg, k.windows[i]!, k.view.windows[i]!, t));
  }
  return Math.floor(Math.max(0, least - extra));
}

/** Unix second the head window resets. */
export function resetAt(k: RateKeyState, t: number): number {
  return Math.ceil((t + resetMs(k.alg, k.windows[k.head]!, k.view.windows[k.head]!, t)) / 1000);
}

/** Refreshes the snapshot admission from credit counts down from. */
export function snapshotHeaders(k: RateKeyState, t: number): void {
  k.hdrLeft = remainingAt(k, t, k.localExtra()) + k.admitted;
  k.hdrReset = resetAt(k, t);
}

/** An allow with headers computed in full, refreshing the snapshot. */
export function allowWithFreshHeaders(k: RateKeyState, t: number): Decision {
  snapshotHeaders(k, t);
  return { kind: "allow", headers: { limit: k.headLimit, remaining: k.hdrRemaining, reset: k.hdrReset } };
}

/** A denial: the limit is reached; retry after `retryMs` (whole seconds, at least 1). */
export function limitedDecision(k: RateKeyState, t: number, retryMs: number): Decision {
  return {
    kind: "deny",
    reason: "limited",
    headers: {
      limit: k.headLimit,
      remaining: 0,
      reset: resetAt(k, t),
      retryAfter: Math.max(1, Math.ceil(retryMs / 1000)),
    },
  };
}

/** A cost no window can ever hold: no Retry-After (waiting cannot help). */
export function overCapacityDecision(k: RateKeyState, t: number): Decision {
  const headers: RateHeaders = {
    limit: k.headLimit,
    remaining: remainingAt(k, t, k.localExtra()),
    reset: resetAt(k, t),
  };
  return { kind: "deny", reason: "costExceedsLimit", headers };
}

/** Ms until one more unit fits in every window beside `reserved` units (at least 1). */
export function longestRetryMs(
  alg: AlgorithmCode,
  windows: readonly WindowSpec[],
  states: readonly WindowState[],
  t: number,
  reserved: number,
): number {
  let ms = 1;
  for (let i = 0; i < windows.length; i++) {
    ms = Math.max(ms, retryAfterMs(alg, windows[i]!, states[i]!, t, reserved));
  }
  return ms;
}
