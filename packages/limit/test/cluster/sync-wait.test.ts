import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { type SyncedKey, startWait, type WaitEnd, type WaitHooks } from "../../src/cluster/sync-wait.js";
import { WaitDeadlines } from "../../src/cluster/wait-deadlines.js";
import { Waitlist } from "../../src/cluster/waitlist.js";

function key(): SyncedKey {
  return { syncing: false, waiters: 0, sendSeq: 0, doneSeq: 0, waitlist: new Waitlist() };
}

type Ends = Array<{ result?: string; timedOut?: boolean; error?: unknown }>;

function hooks(
  k: SyncedKey,
  attempt: () => string | undefined,
  ends: Ends,
): WaitHooks<string> & WaitEnd<string> {
  return {
    attempt,
    kick: () => {
      k.syncing = true;
      k.sendSeq++;
    },
    closed: () => false,
    storeFailing: () => false,
    ended: (result, timedOut) => ends.push({ result, timedOut }),
    failed: (error) => ends.push({ error }),
  };
}

/** A reply to the key's sync: it is done, and its waiters wake. */
function reply(k: SyncedKey): void {
  k.syncing = false;
  k.doneSeq = k.sendSeq;
  k.waitlist.notifyAll();
}

const microtasks = () => new Promise<void>((r) => setImmediate(r));

describe("startWait", () => {
  it("decides after the reply, once the code that applied it has run", async () => {
    const clock = new ManualClock();
    const k = key();
    const ends: Ends = [];
    let granted = false;
    startWait(
      new WaitDeadlines(clock),
      k,
      1,
      100,
      1000,
      "check",
      hooks(k, () => (granted ? "allow" : undefined), ends),
    );
    expect(k.waiters).toBe(1);
    reply(k);
    granted = true; // set after notifyAll, as a round applies every key before its waiters run
    expect(ends).toEqual([]);
    await microtasks();
    expect(ends).toEqual([{ result: "allow", timedOut: false }]);
    expect(k.waiters).toBe(0);
  });

  it("a hook that throws ends the wait with its error, not an uncaught exception", async () => {
    const clock = new ManualClock();
    const k = key();
    const ends: Ends = [];
    const boom = new Error("attempt failed");
    startWait(
      new WaitDeadlines(clock),
      k,
      2,
      100,
      1000,
      "check",
      hooks(
        k,
        () => {
          throw boom;
        },
        ends,
      ),
    );
    reply(k);
    await microtasks();
    expect(ends).toEqual([{ error: boom }]);
    expect(k.waiters).toBe(0);
  });

  it("times out after its budget; a later reply does not wake it again", async () => {
    const clock = new ManualClock();
    const k = key();
    const ends: Ends = [];
    startWait(
      new WaitDeadlines(clock),
      k,
      1,
      100,
      1000,
      "check",
      hooks(k, () => undefined, ends),
    );
    clock.advance(99);
    expect(ends).toEqual([]);
    clock.advance(1);
    expect(ends).toEqual([{ result: undefined, timedOut: true }]);
    reply(k); // its entry is still in the waitlist
    await microtasks();
    expect(ends).toHaveLength(1);
    expect(k.waiters).toBe(0);
  });

  it("a deadline come late (a blocked event loop) gets its budget once more, then the reply decides", async () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const k = key();
    const ends: Ends = [];
    let granted = false;
    startWait(
      deadlines,
      k,
      1,
      100,
      1000,
      "check",
      hooks(k, () => (granted ? "allow" : undefined), ends),
    );
    clock.stall(150); // the loop was blocked past the deadline: the timer fires 50 ms late
    clock.advance(0);
    expect(ends).toEqual([]);
    expect(deadlines.size).toBe(1);
    clock.advance(99);
    expect(ends).toEqual([]);
    granted = true;
    reply(k);
    await microtasks();
    expect(ends).toEqual([{ result: "allow", timedOut: false }]);
    expect(deadlines.size).toBe(0);
  });

  it("waits on many keys share one timer, and each times out at its own deadline", () => {
    const clock = new ManualClock();
    const deadlines = new WaitDeadlines(clock);
    const t0 = clock.monoMs();
    const ended: number[] = [];
    for (const budget of [30, 10, 20]) {
      const k = key();
      startWait(deadlines, k, 1, budget, 1000, "check", {
        ...hooks(k, () => undefined, []),
        ended: () => ended.push(clock.monoMs() - t0),
      });
    }
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(100);
    expect(ended).toEqual([10, 20, 30]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
