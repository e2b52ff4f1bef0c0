import type { Verdict } from "@resil/classify";
import { describe, expect, it, vi } from "vitest";
import { DeadlineExceededError, type RetryEvent, RetryPolicy, retry } from "../src/index.js";
import { ManualClock } from "../src/manual-clock.js";
import { callerError, classifyStatus, rateLimited, StatusError, transient } from "./verdicts.js";

describe("retry: the documented cases", () => {
  it("case 3: interactive, 2 retries, two 503s then ok", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const op = async () => {
      calls++;
      if (calls <= 2) throw new StatusError(503);
      return "ok";
    };
    const policy = RetryPolicy.interactive({ numRetries: 2, maxDelayS: 5 });
    const out = await clock.run(retry(policy, undefined, op, classifyStatus, { clock }));
    expect(out.result).toEqual({ ok: true, value: "ok" });
    expect(out.retries).toBe(2);
    expect(out.verdict).toBeUndefined();
    expect(calls).toBe(3);
  });

  it("case 4: a caller error is never retried", async () => {
    const clock = new ManualClock();
    const op = vi.fn(async () => {
      throw new StatusError(400);
    });
    const policy = RetryPolicy.standard({ numRetries: 5, maxDelayS: 10 });
    const out = await clock.run(retry(policy, undefined, op, classifyStatus, { clock }));
    expect(op).toHaveBeenCalledTimes(1);
    expect(out.result.ok).toBe(false);
    expect(out.result).toMatchObject({ error: { status: 400 } });
    expect(out.verdict?.callerError).toBe(true);
    expect(out.stop).toBe("notRetryable");
    expect(clock.sleeps).toEqual([]);
  });

  it("case 5a: a 2 s hint replaces backoff; elapsed 2.0 to 2.2 s", async () => {
    for (const random of [() => 0, () => 0.5, () => 0.999999, Math.random]) {
      const clock = new ManualClock(1_000);
      let calls = 0;
      const op = async () => {
        if (calls++ === 0) throw new StatusError(429, 2000);
        return "ok";
      };
      const policy = RetryPolicy.standard({ numRetries: 3, maxDelayS: 5 });
      const start = clock.now();
      const out = await clock.run(retry(policy, start + 10_000, op, classifyStatus, { clock, random }));
      expect(out.result).toEqual({ ok: true, value: "ok" });
      expect(out.retries).toBe(1);
      const elapsed = clock.now() - start;
      expect(elapsed).toBeGreaterThanOrEqual(2000);
      expect(elapsed).toBeLessThanOrEqual(2200);
    }
  });

  it("case 5b: a 30 s hint past the deadline stops at once without sleeping", async () => {
    const clock = new ManualClock();
    const op = vi.fn(async () => {
      throw new StatusError(429, 30_000);
    });
    const policy = RetryPolicy.standard({ numRetries: 3, maxDelayS: 5 });
    const out = await clock.run(retry(policy, clock.now() + 10_000, op, classifyStatus, { clock }));
    expect(out.retries).toBe(0);
    expect(op).toHaveBeenCalledTimes(1);
    expect(out.verdict?.retryAfterMs).toBe(30_000);
    expect(out.stop).toBe("deadline");
    expect(clock.now()).toBe(0);
    // the only sleep is the deadline timer, which was cancelled
    expect(clock.pending).toBe(0);
  });
});

describe("retry: more rules", () => {
  it("a hint is not capped by max_delay_s", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const op = async () => {
      if (calls++ === 0) throw new StatusError(429, 8000);
      return 1;
    };
    const policy = RetryPolicy.interactive({ numRetries: 1, maxDelayS: 1 });
    await clock.run(retry(policy, undefined, op, classifyStatus, { clock, random: () => 0.5 }));
    expect(clock.now()).toBe(8400);
  });

  it("stops after maxRetries with the last error and its verdict", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const op = async () => {
      throw new Error(`fail ${calls++}`);
    };
    const policy = RetryPolicy.standard({ numRetries: 2, maxDelayS: 10 });
    const out = await clock.run(retry(policy, undefined, op, () => transient, { clock, random: () => 0 }));
    expect(calls).toBe(3);
    expect(out.retries).toBe(2);
    expect(out.stop).toBe("exhausted");
    expect(out.result).toEqual({ ok: false, error: new Error("fail 2") });
    expect(out.verdict).toBe(transient);
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it("accepts a synchronous op, and a synchronous throw", async () => {
    const clock = new ManualClock();
    const ok = await retry(RetryPolicy.none(), undefined, () => 7, classifyStatus, { clock });
    expect(ok.result).toEqual({ ok: true, value: 7 });
    const out = await retry(
      RetryPolicy.none(),
      undefined,
      () => {
        throw new StatusError(400);
      },
      classifyStatus,
      { clock },
    );
    expect(out.verdict).toBe(callerError);
  });

  it("runs the first attempt even when the deadline has passed", async () => {
    const clock = new ManualClock(5000);
    const op = vi.fn(async () => "late but done");
    const out = await retry(RetryPolicy.none(), 1000, op, classifyStatus, { clock });
    expect(out.result).toEqual({ ok: true, value: "late but done" });
  });
});

describe("retry: AbortSignal and deadline (extension)", () => {
  it("hands op a live signal and its attempt number", async () => {
    const clock = new ManualClock();
    const seen: Array<[number, boolean]> = [];
    const op = async (attempt: number, signal: AbortSignal) => {
      seen.push([attempt, signal.aborted]);
      if (attempt < 1) throw new StatusError(503);
      return "ok";
    };
    const policy = RetryPolicy.interactive({ numRetries: 3, maxDelayS: 1 });
    await clock.run(retry(policy, clock.now() + 10_000, op, classifyStatus, { clock }));
    expect(seen).toEqual([
      [0, false],
      [1, false],
    ]);
  });

  it("ends a sleep as soon as the caller aborts", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const op = vi.fn(async () => {
      throw new StatusError(503);
    });
    const policy = RetryPolicy.standard({ numRetries: 3, maxDelayS: 10 });
    const pending = retry(policy, undefined, op, classifyStatus, {
      clock,
      signal: controller.signal,
      random: () => 0,
    });
    await clock.advance(100);
    controller.abort(new Error("client went away"));
    await clock.advance(0);
    const out = await pending;
    expect(out.stop).toBe("aborted");
    expect(out.retries).toBe(0);
    expect(op).toHaveBeenCalledTimes(1);
    expect(clock.now()).toBe(100);
    expect(clock.pending).toBe(0);
  });

  it("does not call op when the caller already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const op = vi.fn(async () => 1);
    const out = await retry(RetryPolicy.none(), undefined, op, classifyStatus, {
      clock: new ManualClock(),
      signal: controller.signal,
    });
    expect(op).not.toHaveBeenCalled();
    expect(out).toMatchObject({ stop: "aborted", result: { ok: false, error: new Error("gone") } });
  });

  it("aborts op's signal when the deadline passes", async () => {
    const clock = new ManualClock();
    const op = async (_attempt: number, signal: AbortSignal) => {
      await clock.sleep(5000, signal);
      return "too slow";
    };
    const policy = RetryPolicy.interactive({ numRetries: 3, maxDelayS: 1 });
    const out = await clock.run(retry(policy, 1000, op, () => transient, { clock }));
    expect(clock.now()).toBe(1000);
    expect(out.result.ok).toBe(false);
    expect(out.result).toMatchObject({ error: expect.any(DeadlineExceededError) });
    expect(out.stop).toBe("deadline");
    expect(out.retries).toBe(0);
  });
});

describe("retry: events (extension)", () => {
  it("reports each retry with attempt, wait and verdict", async () => {
    const clock = new ManualClock();
    const events: RetryEvent[] = [];
    let calls = 0;
    const verdicts: Verdict[] = [transient, rateLimited(3000)];
    const op = async () => {
      if (calls < 2) throw new StatusError(calls++ === 0 ? 503 : 429, 3000);
      return "ok";
    };
    const classify = (e: unknown) => verdicts[(e as StatusError).status === 503 ? 0 : 1]!;
    const policy = RetryPolicy.standard({ numRetries: 5, maxDelayS: 10 });
    await clock.run(
      retry(policy, undefined, op, classify, { clock, random: () => 0, onRetry: (e) => events.push(e) }),
    );
    expect(
      events.map(({ attempt, waitMs, hinted, verdict }) => ({ attempt, waitMs, hinted, verdict })),
    ).toEqual([
      { attempt: 0, waitMs: 1000, hinted: false, verdict: transient },
      { attempt: 1, waitMs: 3000, hinted: true, verdict: verdicts[1] },
    ]);
  });

  it("ignores a throwing hook", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const op = async () => {
      if (calls++ === 0) throw new StatusError(503);
      return "ok";
    };
    const onRetry = () => {
      throw new Error("logger broke");
    };
    const policy = RetryPolicy.interactive({ numRetries: 1, maxDelayS: 1 });
    const out = await clock.run(retry(policy, undefined, op, classifyStatus, { clock, onRetry }));
    expect(out.result).toEqual({ ok: true, value: "ok" });
  });
});
