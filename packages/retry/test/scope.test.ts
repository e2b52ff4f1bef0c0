import { describe, expect, it, vi } from "vitest";
import { DeadlineExceededError, systemClock } from "../src/index.js";
import { ManualClock } from "../src/manual-clock.js";
import { signalScope } from "../src/scope.js";

describe("signalScope", () => {
  it("aborts with DeadlineExceededError when the deadline passes", async () => {
    const clock = new ManualClock();
    const scope = signalScope(undefined, 500, clock);
    await clock.advance(499);
    expect(scope.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(scope.signal.reason).toEqual(expect.any(DeadlineExceededError));
    scope.dispose();
  });

  it("never aborts before now() reaches the deadline, even with a timer that fires early", async () => {
    const manual = new ManualClock();
    // fires half a ms early, as setTimeout can against performance.now()
    const early = {
      now: () => manual.now(),
      sleep: (ms: number, s?: AbortSignal) => manual.sleep(Math.max(ms - 0.5, Math.min(ms, 0.5)), s),
    };
    const scope = signalScope(undefined, 10, early);
    await manual.advance(9.5);
    expect(scope.signal.aborted).toBe(false);
    await manual.advance(0.5);
    expect(scope.signal.aborted).toBe(true);
    scope.dispose();
  });

  it("follows the parent's abort and reason", () => {
    const parent = new AbortController();
    const scope = signalScope(parent.signal, undefined, new ManualClock());
    parent.abort("bye");
    expect(scope.signal.reason).toBe("bye");
  });

  it("is aborted at once for a passed deadline or an aborted parent", () => {
    const clock = new ManualClock(100);
    expect(signalScope(undefined, 100, clock).signal.aborted).toBe(true);
    expect(signalScope(AbortSignal.abort("x"), undefined, clock).signal.reason).toBe("x");
  });

  it("dispose cancels the timer and detaches from the parent", async () => {
    const clock = new ManualClock();
    const parent = new AbortController();
    const scope = signalScope(parent.signal, 500, clock);
    scope.dispose();
    expect(clock.pending).toBe(0);
    parent.abort();
    await clock.advance(1000);
    expect(scope.signal.aborted).toBe(false);
  });

  it("an infinite or far deadline arms no timer that setTimeout would cut to 1 ms", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const far = systemClock.now() + 40 * 24 * 3600 * 1000; // past setTimeout's 2^31 - 1 ms limit
    const scopes = [Number.POSITIVE_INFINITY, far].map((d) => signalScope(undefined, d, systemClock));
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const delays = spy.mock.calls.map((call) => call[1]);
      expect(delays.every((ms) => ms === undefined || ms <= 2 ** 31 - 1)).toBe(true);
      // one wait of our own plus at most one timer per scope, not a 1 ms spin
      expect(spy.mock.calls.length).toBeLessThanOrEqual(3);
      expect(scopes.map((s) => s.signal.aborted)).toEqual([false, false]);
    } finally {
      for (const s of scopes) s.dispose();
      spy.mockRestore();
    }
  });
});
