import type { Clock, Timer } from "../clock/clock.js";
import { LimiterClosedError } from "./errors.js";

/** A request waiting on a key's next sync reply. */
interface Wakeable {
  wake(): void;
}

/** Wakes the requests waiting on a key's next sync reply. */
export class Waitlist {
  // made on the first wait: most keys never have a request waiting
  private waiting: Wakeable[] | undefined;

  add(w: Wakeable): void {
    if (this.waiting === undefined) this.waiting = [w];
    else this.waiting.push(w);
  }

  /** Forgets every waiter without waking it (their waits ended: timed out, or the key was forgotten). */
  clear(): void {
    this.waiting = undefined;
  }

  notifyAll(): void {
    if (this.waiting === undefined || this.waiting.length === 0) return;
    const woken = this.waiting;
    this.waiting = undefined;
    for (const w of woken) w.wake();
  }
}

/** What waiting on a key's sync replies reads (rate and concurrency keys alike). */
export interface SyncedKey {
  syncing: boolean;
  /** Units (or slots) wanted by requests waiting now. */
  waiters: number;
  sendSeq: number;
  doneSeq: number;
  readonly waitlist: Waitlist;
}

/** What a wait needs from the limiter. */
export interface WaitHooks<R> {
  /** The decision from the key's state now, or undefined to keep waiting. */
  attempt(): R | undefined;
  /** Starts a sync of the key unless one is in flight. */
  kick(): void;
  closed(): boolean;
  storeFailing(): boolean;
  /** The store's answer covered the wait but lapsed before it was read (a blocked event loop). */
  lapsedOnArrival?(): boolean;
  /** The last reply paced the key past the time an ask sent now would reach the store (rate keys). */
  paced?(): boolean;
}

/** How a wait ended: with a decision, or without one (and whether the budget ran out). */
export interface WaitOutcome<R> {
  result: R | undefined;
  timedOut: boolean;
}

/**
 * Waits on a key's sync replies, at most `budgetMs` (see docs/protocol.md#s2-5): until `attempt`
 * decides, a reply answers a request sent after this wait registered, or the store fails. A wait
 * registered while a round was in flight gets `budgetMs` again from that round's reply, never past
 * `ceilingMs` (cacheTtlMs) from its start.
 * Rejects with LimiterClosedError (naming `op`) when the limiter shuts down meanwhile.
 */
export async function waitForReplies<R>(
  clock: Clock,
  key: SyncedKey,
  units: number,
  budgetMs: number,
  ceilingMs: number,
  op: "check" | "acquire",
  hooks: WaitHooks<R>,
): Promise<WaitOutcome<R>> {
  const started = clock.monoMs();
  let deadline = started + budgetMs;
  let registered = key.sendSeq;
  let reasked = false;
  let carried = false;
  key.waiters += units;
  try {
    for (;;) {
      const left = deadline - clock.monoMs();
      if (left <= 0) return { result: undefined, timedOut: true };
      if (!key.syncing) hooks.kick();
      // a failing store is probed once per interval: without a probe in flight, decide now
      if (!key.syncing && hooks.storeFailing()) return { result: undefined, timedOut: false };
      const woken = nextReply(clock, key.waitlist, left);
      if (!(await woken)) return { result: undefined, timedOut: true };
      if (hooks.closed()) throw new LimiterClosedError(op);
      const result = hooks.attempt();
      if (result !== undefined) return { result, timedOut: false };
      if (hooks.storeFailing()) return { result: undefined, timedOut: false };
      if (key.doneSeq > registered) {
        // the time went to this process, not to the store: ask once more, on a fresh budget
        if (reasked || hooks.lapsedOnArrival?.() !== true) return { result: undefined, timedOut: false };
        reasked = true;
        registered = key.sendSeq;
        deadline = clock.monoMs() + budgetMs;
      } else if (hooks.paced?.() === true) {
        // Registered while that round was in flight: the store just paced this replica, so another
        // round now would come back empty (docs/protocol.md#s2-5); decided as a request arriving now is.
        return { result: undefined, timedOut: false };
      } else if (!carried) {
        // That round left before this wait and did not carry its need: the round that does gets the
        // whole budget (a burst landing on a round in flight was denied on a healthy store)
        carried = true;
        deadline = Math.max(deadline, Math.min(clock.monoMs() + budgetMs, started + ceilingMs));
      }
    }
  } finally {
    key.waiters -= units;
  }
}

/** A wait's timer later than this (or than its whole budget, if shorter) means the event loop was blocked. */
const LATE_TIMER_MS = 5;

const UNREF = { unref: true } as const;

/** Resolves true on the key's next reply (or failure), false after `ms` (twice `ms` when blocked). */
function nextReply(clock: Clock, waitlist: Waitlist, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => waitlist.add(new ReplyWait(clock, ms, resolve)));
}

/** One wait for a reply: its timer and its place in the key's waitlist, in one object. */
class ReplyWait implements Wakeable {
  private readonly due: number;
  private extended = false;
  private polled = false;
  private timer: Timer;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly resolve: (woken: boolean) => void,
  ) {
    this.due = clock.monoMs() + ms;
    this.timer = clock.setTimer(ms, this.expire, UNREF);
  }

  wake(): void {
    this.timer.cancel();
    this.resolve(true);
  }

  private readonly expire = (): void => {
    // Late means the event loop was blocked (a GC pause, a busy callback): the time went to this
    // process, not to the store, and timers run before sockets are read, so a reply may already be
    // waiting. Give the store its budget once more before a timeout.
    if (this.clock.monoMs() - this.due > Math.min(this.ms, LATE_TIMER_MS) && !this.extended) {
      this.extended = true;
      this.timer = this.clock.setTimer(this.ms, this.expire, UNREF);
    } else if (!this.polled) {
      // Even on time, a reply may have landed while this turn ran: decide after one I/O poll.
      this.polled = true;
      this.timer = this.clock.setTimer(0, this.expire, UNREF);
    } else this.resolve(false);
  };
}
