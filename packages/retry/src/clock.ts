/** Time as retry sees it: a monotonic `now()` in ms and a sleep that ends early on abort. */
export interface Clock {
  /** Monotonic milliseconds; absolute deadlines passed to `retry` are on this timeline. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days); longer ones fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The process clock: `performance.now()` and `setTimeout` (a longer wait runs in steps it can hold). */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (!(ms > 0)) {
        resolve();
        return;
      }
      const end = performance.now() + ms;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      // an infinite sleep re-arms forever and ends only on abort
      const step = () => {
        const left = end - performance.now();
        if (left <= 0) {
          signal?.removeEventListener("abort", onAbort);
          resolve();
          return;
        }
        timer = setTimeout(step, Math.min(Math.max(left, 1), MAX_TIMER_MS));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      step();
    }),
};

/** A deadline `ms` from now on `clock`'s timeline (an absolute deadline `retry` and `run` accept). */
export function deadlineIn(ms: number, clock: Pick<Clock, "now"> = systemClock): number {
  return clock.now() + ms;
}
