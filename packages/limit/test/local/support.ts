import { getEventListeners } from "node:events";
import type { Clock, Timer } from "../../src/index.js";

/** Observes a promise without awaiting it, so a test can ask "still pending?". */
export function track<T>(p: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => {
      state.settled = true;
      state.value = value;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

/** Wraps a clock and counts its `monoMs` reads and timers, to show a waiter does not spin. */
export class CountingClock implements Clock {
  reads = 0;
  timers = 0;
  constructor(private readonly inner: Clock) {}
  monoMs(): number {
    this.reads++;
    return this.inner.monoMs();
  }
  unixMs(): number {
    return this.inner.unixMs();
  }
  setTimer(ms: number, fn: () => void): Timer {
    this.timers++;
    return this.inner.setTimer(ms, fn);
  }
}

/** Abort listeners still registered on `signal`. */
export function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

/** Lets queued promise continuations run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

export const BAD_COSTS = [
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
] as const;
