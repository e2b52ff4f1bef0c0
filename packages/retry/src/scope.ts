import { type Clock, MAX_TIMER_MS, systemClock } from "./clock.js";
import { type Deadline, type ResolvedDeadline, resolveDeadline } from "./deadline.js";
import { DeadlineExceededError } from "./errors.js";

/** One signal that aborts when the caller's does or when the deadline passes; `dispose` stops the timer. */
export interface SignalScope {
  readonly signal: AbortSignal;
  /** The deadline as read when the scope was made. */
  readonly deadline: ResolvedDeadline;
  dispose(): void;
}

/**
 * A scope over `parent` and `deadline` (any `Deadline`, or one already resolved). The signal's
 * reason is the parent's, or a `DeadlineExceededError` naming the budget. A number is taken as it
 * is, unchecked (this is the low-level timer; `retry` and `run` reject numbers on another timeline).
 * `onAbort` is called once with the reason when the scope aborts (cheaper than a listener).
 */
export function signalScope(
  parent: AbortSignal | undefined,
  deadline: Deadline | ResolvedDeadline | undefined,
  clock: Clock,
  onAbort?: (reason: unknown) => void,
): SignalScope {
  const resolved =
    typeof deadline === "number"
      ? { atMs: deadline, budgetMs: deadline - clock.now(), signal: undefined }
      : isResolved(deadline)
        ? deadline
        : resolveDeadline(deadline, clock);
  const aborter = new AbortController();
  // told directly, so a caller that must react need not add its own listener
  const controller = {
    signal: aborter.signal,
    abort(reason: unknown) {
      if (aborter.signal.aborted) return;
      aborter.abort(reason);
      onAbort?.(reason);
    },
  };
  // listeners and aborts on an AbortSignal cost microseconds in Node 20: a plain timer is cleared instead
  let cancelTimer: (() => void) | undefined;
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  const { atMs, budgetMs, signal: deadlineSignal } = resolved;
  const onDeadlineAbort = () =>
    controller.abort(new DeadlineExceededError(undefined, undefined, { cause: deadlineSignal?.reason }));
  if (deadlineSignal && !controller.signal.aborted) {
    if (deadlineSignal.aborted) onDeadlineAbort();
    else deadlineSignal.addEventListener("abort", onDeadlineAbort, { once: true });
  }
  if (atMs !== undefined && !controller.signal.aborted) {
    // timers may fire a little before `now()` reaches the deadline: re-arm so an abort always means it passed
    const arm = () => {
      const remaining = atMs - clock.now();
      if (remaining <= 0) controller.abort(new DeadlineExceededError(budgetMs, atMs));
      // an infinite deadline needs no timer; a far one waits in steps setTimeout can hold
      else if (Number.isFinite(remaining))
        cancelTimer = startTimer(clock, Math.min(remaining, MAX_TIMER_MS), arm);
    };
    arm();
  }
  return {
    signal: controller.signal,
    deadline: resolved,
    dispose() {
      parent?.removeEventListener("abort", onParentAbort);
      deadlineSignal?.removeEventListener("abort", onDeadlineAbort);
      cancelTimer?.();
    },
  };
}

/** Calls `fire` after `ms`; returns the cancel. `setTimeout` itself on the system clock. */
function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock === systemClock) {
    const timer = setTimeout(fire, Math.max(ms, 1));
    return () => clearTimeout(timer);
  }
  const cancel = new AbortController();
  // the rejection only means the scope was disposed first
  clock.sleep(ms, cancel.signal).then(fire, () => {});
  return () => cancel.abort();
}

function isResolved(d: Deadline | ResolvedDeadline | undefined): d is ResolvedDeadline {
  return typeof d === "object" && d !== null && "atMs" in d && "signal" in d && !(d instanceof AbortSignal);
}
