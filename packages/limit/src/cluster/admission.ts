import type { Clock } from "../clock/clock.js";
import { free } from "../store/algorithm.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import type { Decision } from "./decision.js";
import { LimiterClosedError } from "./errors.js";
import { limitedDecision, longestRetryMs } from "./headers.js";
import type { RateKeyState } from "./rate-key.js";

/** Wakes the requests waiting on a key's next sync reply. */
export class Waitlist {
  // made on the first wait: most keys never have a request waiting
  private listeners: Array<() => void> | undefined;

  add(listener: () => void): void {
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
  }

  notifyAll(): void {
    if (this.listeners === undefined || this.listeners.length === 0) return;
    const woken = this.listeners;
    this.listeners = undefined;
    for (const listener of woken) listener();
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
 * decides, a reply answers a request sent after this wait registered, or the store fails.
 * Rejects with LimiterClosedError (naming `op`) when the limiter shuts down meanwhile.
 */
export async function waitForReplies<R>(
  clock: Clock,
  key: SyncedKey,
  units: number,
  budgetMs: number,
  op: "check" | "acquire",
  hooks: WaitHooks<R>,
): Promise<WaitOutcome<R>> {
  let deadline = clock.monoMs() + budgetMs;
  let registered = key.sendSeq;
  let reasked = false;
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
      }
    }
  } finally {
    key.waiters -= units;
  }
}

/** A wait's timer later than this (or than its whole budget, if shorter) means the event loop was blocked. */
const LATE_TIMER_MS = 5;

/** Resolves true on the key's next reply (or failure), false after `ms` (twice `ms` when blocked). */
function nextReply(clock: Clock, waitlist: Waitlist, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const due = clock.monoMs() + ms;
    let extended = false;
    const expire = () => {
      // Late means the event loop was blocked (a GC pause, a busy callback): the time went to this
      // process, not to the store, and timers run before sockets are read, so a reply may already be
      // waiting. Give the store its budget once more before a timeout.
      if (clock.monoMs() - due > Math.min(ms, LATE_TIMER_MS) && !extended) {
        extended = true;
        timer = clock.setTimer(ms, expire, { unref: true });
      } else if (!polled) {
        // Even on time, a reply may have landed while this turn ran: decide after one I/O poll.
        polled = true;
        timer = clock.setTimer(0, expire, { unref: true });
      } else resolve(false);
    };
    let polled = false;
    let timer = clock.setTimer(ms, expire, { unref: true });
    waitlist.add(() => {
      timer.cancel();
      resolve(true);
    });
  });
}

/**
 * A denial with Retry-After from the view (see docs/protocol.md#s2-6): until a unit frees beside the
 * admits the store has not seen, one cold admit per other replica and (`countReservations`) the
 * credit others hold.
 */
export function denyFromView(
  k: RateKeyState,
  cost: number,
  t: number,
  replicas: number,
  countReservations: boolean,
): Decision {
  const reserved =
    k.localExtra() + (countReservations ? k.view.reservedOthers : 0) + (replicas - 1) + Math.max(0, cost - 1);
  const ms = longestRetryMs(k.alg, k.windows, k.view.windows, t, reserved);
  k.denied++;
  k.usedWindow = Math.floor(t / k.minWindowMs);
  return limitedDecision(k, t, ms);
}

/** Some window cannot fit `cost` more units beside the admits the store has not seen. */
export function certainlyFull(k: RateKeyState, cost: number, t: number): boolean {
  const extra = k.localExtra();
  for (let i = 0; i < k.windows.length; i++) {
    if (free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - extra < Math.max(cost, 1)) return true;
  }
  return false;
}

/**
 * Whether a request decided without a reply (an overrun) fits this replica's share of what its view
 * left (see docs/protocol.md#s2-5): the view's free units at `t`, less the credit others held, this
 * replica's unused credit and the admits the store has not seen, split over the replicas, counting
 * the overruns since that view. Only in the window the view was taken in (others get a later
 * window's credit from the store meanwhile), except for a replica alone (N = 1) with an answered
 * view: that view, carried to `t`, is the whole truth. A store that answers, only late
 * (`storeAnswering`), keeps granting the free units to other replicas: then only a replica alone
 * overruns.
 */
export function overrunFits(
  k: RateKeyState,
  cost: number,
  t: number,
  viewT: number,
  replicas: number,
  storeAnswering: boolean,
): boolean {
  if (storeAnswering && replicas > 1) return false;
  const alone = replicas === 1 && k.view.answered;
  if (!alone && Math.floor(t / k.minWindowMs) !== Math.floor(viewT / k.minWindowMs)) return false;
  const before = k.view.reservedOthers + k.localExtra() - k.overrunSinceView + k.unused();
  for (let i = 0; i < k.windows.length; i++) {
    const left = free(k.alg, k.windows[i]!, k.view.windows[i]!, t) - before;
    if (k.overrunSinceView + cost > Math.floor(Math.max(0, left) / replicas)) return false;
  }
  return true;
}

/**
 * Cold credit of a rate key without credit (docs/protocol.md#s2-4): an unreserved share of each
 * limit (allowance / replicas, at most one sync interval's worth), within what the view shows free.
 */
export function coldRateCredit(k: RateKeyState, replicas: number, t: number): number {
  const allowance = Math.min(k.policy.localAllowance, 1);
  const extra = k.localExtra();
  let units = Number.POSITIVE_INFINITY;
  for (let i = 0; i < k.windows.length; i++) {
    const w = k.windows[i]!;
    const cap = k.capacities[i]!;
    let room = Math.min(
      Math.floor((allowance * cap) / replicas),
      Math.ceil((cap * k.policy.syncIntervalMs) / w.windowMs),
    );
    if (k.view.answered) room = Math.min(room, Math.floor(free(k.alg, w, k.view.windows[i]!, t) - extra));
    units = Math.min(units, room);
  }
  return units;
}

/**
 * Cold slots of a concurrency key without credit: a share of what neither others (at the last reply)
 * nor this replica hold.
 */
export function coldSlotCredit(c: ConcurrencyKeyState, replicas: number): number {
  const share = Math.min(c.tuning.localAllowance, 1) * (c.max - c.others - c.active);
  return Math.floor(share / replicas);
}
