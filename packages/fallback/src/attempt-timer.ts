import { type Clock, MAX_TIMER_MS, systemClock } from "@resil/retry";

/** The signal of an attempt nothing can cancel. */
const NEVER = new AbortController().signal;

/** An attempt that ran past its own time limit; read by classify as a timeout (code ETIMEDOUT). */
export class AttemptTimeoutError extends Error {
  override readonly name = "AttemptTimeoutError";
  readonly code = "ETIMEDOUT";
  constructor(readonly timeoutMs: number) {
    super(`attempt exceeded its ${timeoutMs} ms timeout`);
  }
}

/** Calls `fire` after `ms` on `clock`; returns the cancel. `setTimeout` itself on the system clock (no promise). */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock === systemClock) {
    const timer = setTimeout(fire, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  }
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(fire, () => {});
  return () => cancel.abort();
}

/**
 * Runs `send` with a signal that aborts on `parent` or after `timeoutMs`, and settles as soon as
 * either happens: a hung attempt that ignores its signal is abandoned, not awaited.
 */
export function guardAttempt<T>(
  send: (signal: AbortSignal) => T | PromiseLike<T>,
  parent: AbortSignal | undefined,
  timeoutMs: number | undefined,
  clock: Clock,
): Promise<T> {
  if (timeoutMs === undefined && parent === undefined) {
    try {
      return Promise.resolve(send(NEVER));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return new Promise<T>((resolve, reject) => {
    const controller = new AbortController();
    let cancelTimer: (() => void) | undefined;
    const done = () => {
      cancelTimer?.();
      parent?.removeEventListener("abort", onParent);
    };
    const onParent = () => {
      done();
      controller.abort(parent?.reason);
      reject(parent?.reason);
    };
    if (parent?.aborted) {
      reject(parent.reason);
      return;
    }
    parent?.addEventListener("abort", onParent, { once: true });
    if (timeoutMs !== undefined) {
      cancelTimer = startTimer(clock, timeoutMs, () => {
        const error = new AttemptTimeoutError(timeoutMs);
        done();
        controller.abort(error);
        reject(error);
      });
    }
    let pending: T | PromiseLike<T>;
    try {
      pending = send(controller.signal);
    } catch (error) {
      done();
      reject(error);
      return;
    }
    Promise.resolve(pending).then(
      (value) => {
        done();
        resolve(value);
      },
      (error) => {
        done();
        reject(error);
      },
    );
  });
}
