import type { Clock } from "./clock.js";

interface Timer {
  at: number;
  seq: number;
  fire(): void;
}

// Lets every pending promise continuation run (microtasks drain before an immediate).
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A virtual clock for tests of code that retries or falls back: time moves only when the test
 * advances it, so backoff and deadlines run without real sleeps.
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];
  /** Every sleep requested, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  get pending(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal?.reason);
      };
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  private takeNext(limit: number): Timer | undefined {
    let next: Timer | undefined;
    for (const x of this.timers)
      if (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq)) next = x;
    if (!next || next.at > limit) return undefined;
    this.timers = this.timers.filter((x) => x !== next);
    return next;
  }

  /** Moves time forward by `ms`, firing due timers in order. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await settle();
      const next = this.takeNext(target);
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
    this.t = target;
    await settle();
  }

  /** Jumps from timer to timer until `promise` settles; fails if it waits on nothing. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    promise.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    for (;;) {
      await settle();
      if (done) return promise;
      const next = this.takeNext(Number.POSITIVE_INFINITY);
      if (!next) throw new Error("ManualClock.run: the promise waits on no timer");
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
  }
}
