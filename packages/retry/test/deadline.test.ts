import { describe, expect, it, vi } from "vitest";
import {
  DeadlineExceededError,
  type GiveUpEvent,
  InvalidDeadlineError,
  MAX_DEADLINE_AHEAD_MS,
  ManualClock,
  RetryPolicy,
  resolveDeadline,
  retry,
  systemClock,
} from "../src/index.js";
import { classifyStatus, rateLimited, StatusError, transient } from "./verdicts.js";

const slowOp = (clock: ManualClock) => async (_attempt: number, signal: AbortSignal) => {
  await clock.sleep(5000, signal);
  return "too slow";
};

describe("deadlines as budgets, signals or clock times", () => {
  it("a budget aborts the op after that many ms and says so in budget terms", async () => {
    const clock = new ManualClock(123.456);
    const out = await clock.run(
      retry(RetryPolicy.none(), { budgetMs: 200 }, slowOp(clock), () => transient, { clock }),
    );
    expect(clock.now()).toBeCloseTo(323.456);
    expect(out.stop).toBe("deadline");
    const error = out.result.ok ? undefined : out.result.error;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as Error).message).toBe("200 ms budget exceeded");
  });

  it("an AbortSignal deadline stops the loop as a deadline, not a caller abort", async () => {
    const clock = new ManualClock();
    const timeUp = new AbortController();
    const op = vi.fn(async () => {
      throw new StatusError(503);
    });
    const policy = RetryPolicy.standard({ numRetries: 5, maxDelayS: 10 });
    const pending = retry(policy, timeUp.signal, op, classifyStatus, { clock, random: () => 0 });
    await clock.advance(500);
    timeUp.abort(new Error("time is up"));
    const out = await pending;
    expect(out.stop).toBe("deadline");
    expect(op).toHaveBeenCalledTimes(1);
  });

  it("AbortSignal.timeout works as a deadline on the system clock", async () => {
    const started = performance.now();
    const op = async (_n: number, signal: AbortSignal) =>
      systemClock.sleep(10_000, signal).then(() => "late");
    const out = await retry(RetryPolicy.none(), AbortSignal.timeout(30), op, () => transient);
    expect(out.stop).toBe("deadline");
    expect(performance.now() - started).toBeLessThan(2000);
    const error = out.result.ok ? undefined : out.result.error;
    expect(error).toBeInstanceOf(DeadlineExceededError);
  });

  it("rejects a Date.now() value, NaN and Infinity with InvalidDeadlineError", async () => {
    const op = vi.fn(async () => "ok");
    for (const bad of [Date.now() + 150, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(retry(RetryPolicy.none(), bad, op, () => transient)).rejects.toThrow(InvalidDeadlineError);
    }
    await expect(retry(RetryPolicy.none(), Date.now() + 150, op, () => transient)).rejects.toThrow(
      /Date\.now\(\) value\?/,
    );
    expect(op).not.toHaveBeenCalled();
  });

  it("rejects a budget that is not a number >= 0", () => {
    const clock = new ManualClock();
    for (const bad of [{ budgetMs: -1 }, { budgetMs: Number.NaN }, { budgetMs: "5" }, {}, null]) {
      expect(() => resolveDeadline(bad as never, clock)).toThrow(InvalidDeadlineError);
    }
  });

  it("accepts clock times up to MAX_DEADLINE_AHEAD_MS ahead; an infinite budget is none", () => {
    const clock = new ManualClock(1000);
    expect(resolveDeadline(1000 + MAX_DEADLINE_AHEAD_MS, clock).atMs).toBe(1000 + MAX_DEADLINE_AHEAD_MS);
    expect(() => resolveDeadline(1001 + MAX_DEADLINE_AHEAD_MS, clock)).toThrow(InvalidDeadlineError);
    expect(resolveDeadline({ budgetMs: Number.POSITIVE_INFINITY }, clock).atMs).toBeUndefined();
    expect(resolveDeadline(1200, clock)).toEqual({ atMs: 1200, budgetMs: 200, signal: undefined });
  });
});

describe("longestWaitMs and onGiveUp", () => {
  it("ends at once when a hint is longer than longestWaitMs", async () => {
    const clock = new ManualClock();
    const op = vi.fn(async () => {
      throw new StatusError(429, 30_000);
    });
    const events: GiveUpEvent[] = [];
    const policy = RetryPolicy.standard({ numRetries: 3, maxDelayS: 5 });
    const out = await clock.run(
      retry(policy, undefined, op, classifyStatus, {
        clock,
        longestWaitMs: 2000,
        onGiveUp: (e) => events.push(e),
      }),
    );
    expect(out.stop).toBe("waitTooLong");
    expect(op).toHaveBeenCalledTimes(1);
    expect(clock.now()).toBe(0);
    expect(events).toMatchObject([{ attempts: 1, stop: "waitTooLong", verdict: rateLimited(30_000) }]);
  });

  it("reports nothing on success, and ignores a throwing hook", async () => {
    const clock = new ManualClock();
    const onGiveUp = vi.fn(() => {
      throw new Error("logger broke");
    });
    const ok = await retry(
      RetryPolicy.none(),
      undefined,
      () => 1,
      () => transient,
      { clock, onGiveUp },
    );
    expect(ok.stop).toBe("success");
    expect(onGiveUp).not.toHaveBeenCalled();
    const failed = await retry(
      RetryPolicy.none(),
      undefined,
      () => {
        throw new Error("x");
      },
      () => transient,
      { clock, onGiveUp },
    );
    expect(failed.stop).toBe("exhausted");
    expect(onGiveUp).toHaveBeenCalledTimes(1);
  });
});
