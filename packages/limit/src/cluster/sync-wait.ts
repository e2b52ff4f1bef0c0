import type { Clock } from "../clock/clock.js";
import { LimiterClosedError } from "./errors.js";
import type { Deadline, WaitDeadlines } from "./wait-deadlines.js";
import type { Waitlist, Wakeable } from "./waitlist.js";

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

/** Where a wait's end goes: one object per waiting request, with its hooks. */
export interface WaitEnd<R> {
  ended(result: R | undefined, timedOut: boolean): void;
  /** LimiterClosedError when the limiter shut down meanwhile, or what a hook threw. */
  failed(error: unknown): void;
}

/**
 * Waits on a key's sync replies, at most `budgetMs` (see docs/protocol.md#s2-5): until `attempt`
 * decides, a reply answers a request sent after this wait registered, or the store fails. A wait
 * registered while a round was in flight gets `budgetMs` again from that round's reply, never past
 * `ceilingMs` (cacheTtlMs) from its start. Ends through `hooks.ended`, or `hooks.failed` with
 * LimiterClosedError (naming `op`) when the limiter shuts down meanwhile.
 */
export function startWait<R>(
  deadlines: WaitDeadlines,
  key: SyncedKey,
  units: number,
  budgetMs: number,
  ceilingMs: number,
  op: "check" | "acquire",
  hooks: WaitHooks<R> & WaitEnd<R>,
): void {
  new SyncWait(deadlines, key, units, budgetMs, ceilingMs, op, hooks).step();
}

/** A deadline come later than this (or than its whole budget, if shorter) means the event loop was blocked. */
const LATE_TIMER_MS = 5;

/**
 * One request's wait, stepped by its key's replies and its deadline: the loop of docs/protocol.md#s2-5
 * as one object, without a promise per reply.
 */
class SyncWait<R> implements Wakeable, Deadline {
  due = 0;
  slot = -1;
  private readonly clock: Clock;
  private readonly started: number;
  private deadline: number;
  private registered: number;
  private reasked = false;
  private carried = false;
  /** In the key's waitlist with a deadline pending: a wake or the deadline ends this turn. */
  private armed = false;
  private ms = 0;
  private extended = false;
  private polled = false;

  constructor(
    private readonly deadlines: WaitDeadlines,
    private readonly key: SyncedKey,
    private readonly units: number,
    private readonly budgetMs: number,
    private readonly ceilingMs: number,
    private readonly op: "check" | "acquire",
    private readonly hooks: WaitHooks<R> & WaitEnd<R>,
  ) {
    this.clock = deadlines.clock;
    this.started = this.clock.monoMs();
    this.deadline = this.started + budgetMs;
    this.registered = key.sendSeq;
    key.waiters += units;
  }

  /** The top of the loop: end, or wait for the next reply (or failure) at most until the deadline. */
  step(): void {
    const { key, hooks } = this;
    const left = this.deadline - this.clock.monoMs();
    if (left <= 0) {
      this.end(undefined, true);
      return;
    }
    try {
      if (!key.syncing) hooks.kick();
      // a failing store is probed once per interval: without a probe in flight, decide now
      if (!key.syncing && hooks.storeFailing()) {
        this.end(undefined, false);
        return;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.armed = true;
    this.extended = false;
    this.polled = false;
    this.ms = left;
    key.waitlist.add(this);
    this.due = this.deadline;
    this.deadlines.add(this);
  }

  // A reply arrived (or the store failed): decided after the code that applied it, as an await would.
  wake(): void {
    if (!this.armed) return; // an entry left from a turn that timed out
    this.armed = false;
    this.deadlines.cancel(this);
    queueMicrotask(this.woken);
  }

  expire(): void {
    if (!this.armed) return;
    // Late means the event loop was blocked (a GC pause, a busy callback): the time went to this
    // process, not to the store, and timers run before sockets are read, so a reply may already be
    // waiting. Give the store its budget once more before a timeout.
    const now = this.clock.monoMs();
    if (now - this.deadline > Math.min(this.ms, LATE_TIMER_MS) && !this.extended) {
      this.extended = true;
      this.due = now + this.ms;
      this.deadlines.add(this);
    } else if (!this.polled) {
      // Even on time, a reply may have landed while this turn ran: decide after one I/O poll.
      this.polled = true;
      this.due = now;
      this.deadlines.add(this);
    } else {
      this.armed = false;
      this.end(undefined, true);
    }
  }

  private readonly woken = (): void => {
    const { key, hooks } = this;
    try {
      if (hooks.closed()) {
        this.fail(new LimiterClosedError(this.op));
        return;
      }
      const result = hooks.attempt();
      if (result !== undefined || hooks.storeFailing()) {
        this.end(result, false);
        return;
      }
      if (key.doneSeq > this.registered) {
        // the time went to this process, not to the store: ask once more, on a fresh budget
        if (this.reasked || hooks.lapsedOnArrival?.() !== true) {
          this.end(undefined, false);
          return;
        }
        this.reasked = true;
        this.registered = key.sendSeq;
        this.deadline = this.clock.monoMs() + this.budgetMs;
      } else if (hooks.paced?.() === true) {
        // Registered while that round was in flight: the store just paced this replica, so another
        // round now would come back empty (docs/protocol.md#s2-5); decided as a request arriving now is.
        this.end(undefined, false);
        return;
      } else if (!this.carried) {
        // That round left before this wait and did not carry its need: the round that does gets the
        // whole budget (a burst landing on a round in flight was denied on a healthy store)
        this.carried = true;
        const now = this.clock.monoMs();
        this.deadline = Math.max(this.deadline, Math.min(now + this.budgetMs, this.started + this.ceilingMs));
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.step();
  };

  private end(result: R | undefined, timedOut: boolean): void {
    this.key.waiters -= this.units;
    this.hooks.ended(result, timedOut);
  }

  private fail(error: unknown): void {
    this.key.waiters -= this.units;
    this.hooks.failed(error);
  }
}
