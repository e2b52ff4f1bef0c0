/** Time as a chain sees it: a monotonic `now()` in ms and a sleep that ends early on abort. */
export interface Clock {
  /** Monotonic milliseconds; deadlines passed to `run` are on this timeline. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The process clock: `performance.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (ms <= 0) {
        resolve();
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** A deadline `ms` from now on `clock`'s timeline (what `run` expects as `deadlineMs`). */
export function deadlineIn(ms: number, clock: Pick<Clock, "now"> = systemClock): number {
  return clock.now() + ms;
}
