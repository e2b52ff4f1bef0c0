import type { Clock } from "./clock.js";
import { DeadlineExceededError } from "./errors.js";

/** The longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One signal that aborts when the caller's does or when the deadline passes; `dispose` stops the timer. */
export interface SignalScope {
  readonly signal: AbortSignal;
  dispose(): void;
}

export function signalScope(parent: AbortSignal | undefined, deadlineMs: number | undefined, clock: Clock) {
  const controller = new AbortController();
  const timer = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  if (deadlineMs !== undefined && !controller.signal.aborted) {
    // timers may fire a little before `now()` reaches the deadline: re-arm so an abort always means it passed
    const arm = () => {
      const remaining = deadlineMs - clock.now();
      if (remaining <= 0) controller.abort(new DeadlineExceededError(deadlineMs));
      // an infinite deadline needs no timer; a far one waits in steps setTimeout can hold (it cuts longer to 1 ms)
      // the timer's rejection only means the scope was disposed first
      else if (Number.isFinite(remaining))
        clock.sleep(Math.min(remaining, MAX_TIMER_MS), timer.signal).then(arm, () => {});
    };
    arm();
  }
  return {
    signal: controller.signal,
    dispose() {
      parent?.removeEventListener("abort", onParentAbort);
      timer.abort();
    },
  } satisfies SignalScope;
}
