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

/** Where the call's scope tells the running attempt that the call was cut (no signal listener needed). */
export interface CutHook {
  cut: ((reason: unknown) => void) | undefined;
}

/**
 * Runs `send` with a signal that aborts when the call is cut (`parent`, told through `hook`) or after
 * `timeoutMs`, and settles as soon as either happens: a hung attempt that ignores its signal is
 * abandoned, not awaited. Without a timeout the parent's own signal is passed as it is.
 */
export function guardAttempt<T>(
  send: (signal: AbortSignal) => T | PromiseLike<T>,
  parent: AbortSignal | undefined,
  hook: CutHook | undefined,
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
    if (parent?.aborted) {
      reject(parent.reason);
      return;
    }
    // the parent's signal serves when only the call can be cut; a timeout needs the attempt's own
    const controller = timeoutMs === undefined ? undefined : new AbortController();
    let cancelTimer: (() => void) | undefined;
    const done = () => {
      cancelTimer?.();
      if (hook) hook.cut = undefined;
    };
    if (hook) {
      hook.cut = (reason) => {
        done();
        controller?.abort(reason);
        reject(reason);
      };
    }
    if (timeoutMs !== undefined) {
      cancelTimer = startTimer(clock, timeoutMs, () => {
        const error = new AttemptTimeoutError(timeoutMs);
        done();
        controller?.abort(error);
        reject(error);
      });
    }
    let pending: T | PromiseLike<T>;
    try {
      pending = send(controller?.signal ?? parent ?? NEVER);
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
