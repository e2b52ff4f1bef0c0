import { type Clock, NEVER } from "./clock.js";

/**
 * Resolves after `ms` on `clock`, or rejects with `signal.reason` on abort (timer and listener are
 * removed either way). A NEVER wait sets no timer, so it keeps no process alive: only the signal ends it.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (Number.isNaN(ms)) return Promise.reject(new RangeError("sleep: ms must not be NaN"));
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    let timer: { cancel(): void } | undefined;
    const onAbort = () => {
      timer?.cancel();
      reject(signal?.reason);
    };
    if (ms !== NEVER) {
      timer = clock.setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
