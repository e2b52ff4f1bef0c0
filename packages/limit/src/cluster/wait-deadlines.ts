import { type Clock, exactMonoMs, type Timer } from "../clock/clock.js";

/** A deadline kept by `WaitDeadlines`: `expire` runs once `due` has come, unless cancelled first. */
export interface Deadline {
  /** Monotonic milliseconds. */
  due: number;
  /** Its index in the heap; -1 while not pending. */
  slot: number;
  /** `now`: the time it runs at, at least `due`, which the clock may not read yet (see `fire`). */
  expire(now: number): void;
}

/** A deadline that calls `run` once it has come (a wait for an outage to count). */
export class DeadlineCall implements Deadline {
  slot = -1;
  constructor(
    public due: number,
    private readonly run: (now: number) => void,
  ) {}

  expire(now: number): void {
    this.run(now);
  }
}

const UNREF = { unref: true } as const;

/**
 * The deadlines of every wait on a sync, under one timer armed for the earliest: a timer per wait
 * links each short-lived wait into the runtime's long-lived timer lists (docs/redis-store.md).
 */
export class WaitDeadlines {
  // a binary min-heap on `due`; each entry knows its index, so cancelling is O(log n)
  private readonly heap: Deadline[] = [];
  private readonly come: Deadline[] = [];
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(readonly clock: Clock) {}

  /** Pending deadlines (cancelled ones are gone at once). */
  get size(): number {
    return this.heap.length;
  }

  /** Runs `d.expire()` once `d.due` has come. `d` must not be pending already. */
  add(d: Deadline): void {
    d.slot = this.heap.length;
    this.heap.push(d);
    this.up(d.slot);
    if (d.due < this.armedFor) this.arm(d.due);
  }

  /** Forgets `d` if pending. The timer stays armed: at worst it fires once with nothing come. */
  cancel(d: Deadline): void {
    const i = d.slot;
    if (i < 0) return;
    d.slot = -1;
    const last = this.heap.pop() as Deadline;
    if (last === d) return;
    this.heap[i] = last;
    last.slot = i;
    this.down(i);
    this.up(last.slot);
  }

  private arm(due: number): void {
    this.timer?.cancel();
    this.armedFor = due;
    this.timer = this.clock.setTimer(due - this.clock.monoMs(), this.fire, UNREF);
  }

  private readonly fire = (): void => {
    // the time it was armed for has come by the event loop's clock, which a cached reading may trail:
    // what is due by then expires now, told that time, as its own timer would have fired
    const now = Math.max(exactMonoMs(this.clock), this.armedFor);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const { heap, come } = this;
    while (heap.length > 0 && (heap[0] as Deadline).due <= now) {
      const d = heap[0] as Deadline;
      this.cancel(d);
      come.push(d);
    }
    if (heap.length > 0) this.arm((heap[0] as Deadline).due);
    // expired once the heap is settled: an expiry may add its deadline again (a later one, or a poll)
    for (let i = 0; i < come.length; i++) {
      try {
        (come[i] as Deadline).expire(now);
      } catch (error) {
        // the others still expire; the error surfaces as a throwing timer's would
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    come.length = 0;
  };

  private up(i: number): void {
    const { heap } = this;
    const d = heap[i] as Deadline;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p] as Deadline;
      if (parent.due <= d.due) break;
      heap[i] = parent;
      parent.slot = i;
      i = p;
    }
    heap[i] = d;
    d.slot = i;
  }

  private down(i: number): void {
    const { heap } = this;
    const n = heap.length;
    const d = heap[i] as Deadline;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && (heap[c + 1] as Deadline).due < (heap[c] as Deadline).due) c++;
      const child = heap[c] as Deadline;
      if (child.due >= d.due) break;
      heap[i] = child;
      child.slot = i;
      i = c;
    }
    heap[i] = d;
    d.slot = i;
  }
}
