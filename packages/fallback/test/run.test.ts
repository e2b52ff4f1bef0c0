import { ManualClock } from "@resil/retry";
import { describe, expect, it, vi } from "vitest";
import { type Attempt, DeadlineExceededError, type Hop, type HopEvent, run } from "../src/index.js";

const served = (value: string): Hop<string, string> => ({ kind: "served", value });
const failed = (error: string): Hop<string, string> => ({ kind: "failed", error });
const always = () => true;

describe("run: the documented cases", () => {
  it("case 2: two 503s, then c serves", async () => {
    const attempt = vi.fn(async (e: string) => (e === "c" ? served("c") : failed("503")));
    const out = await run(["a", "b", "c"], undefined, attempt, always);
    expect(out.result).toEqual({ ok: true, endpoint: "c", value: "c" });
    expect(out.fellBack()).toBe(true);
    expect(out.hops).toHaveLength(3);
    expect(out.hops.map((h) => h.endpoint)).toEqual(["a", "b", "c"]);
  });

  it("case 3: a failure the trigger rejects surfaces at once", async () => {
    const attempt = vi.fn(async () => failed("400"));
    const out = await run(["a", "b"], undefined, attempt, (e) => e !== "400");
    expect(out.result).toEqual({ ok: false, error: { kind: "surfaced", endpoint: "a", error: "400" } });
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(out.hops).toEqual([{ endpoint: "a", hop: failed("400") }]);
  });

  it("case 4: every hop rate-limited reports the shortest wait", async () => {
    const waits: Record<string, number> = { a: 7000, b: 3000 };
    const attempt: Attempt<string, string> = (e) => ({
      kind: "skipped",
      skip: { kind: "rateLimited", retryAfterMs: waits[e]! },
    });
    const out = await run(["a", "b"], undefined, attempt, always);
    expect(out.result).toEqual({ ok: false, error: { kind: "exhausted", rateLimitedMs: 3000 } });
  });

  it("case 5: first and last failures, no rate limit", async () => {
    const out = await run(["a", "b", "c"], undefined, (e) => failed(`${e} down`), always);
    expect(out.result).toEqual({
      ok: false,
      error: {
        kind: "exhausted",
        first: { endpoint: "a", error: "a down" },
        last: { endpoint: "c", error: "c down" },
      },
    });
  });

  it("case 6: a deadline shorter than one hop allows exactly one hop", async () => {
    const clock = new ManualClock();
    const attempt = vi.fn(async () => {
      await clock.sleep(2000);
      return failed("503");
    });
    const out = await clock.run(run(["a", "b", "c"], clock.now() + 1000, attempt, always, { clock }));
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(out.hops).toHaveLength(1);
    expect(out.result).toEqual({
      ok: false,
      error: { kind: "exhausted", first: { endpoint: "a", error: "503" } },
    });
    expect(clock.now()).toBe(2000);
  });
});

describe("run: more rules", () => {
  it("one failure fills first only", async () => {
    const out = await run(["a"], undefined, () => failed("x"), always);
    expect(out.result).toEqual({
      ok: false,
      error: { kind: "exhausted", first: { endpoint: "a", error: "x" } },
    });
  });

  it("a non-rate-limit skip or a failure clears the rate-limited flag", async () => {
    const rl: Hop<string, string> = { kind: "skipped", skip: { kind: "rateLimited", retryAfterMs: 5 } };
    const open: Hop<string, string> = { kind: "skipped", skip: { kind: "breakerOpen", retryInMs: 9 } };
    const a = await run(["a", "b"], undefined, (e) => (e === "a" ? rl : open), always);
    expect(a.result).toEqual({ ok: false, error: { kind: "exhausted" } });
    const b = await run(["a", "b"], undefined, (e) => (e === "a" ? rl : failed("x")), always);
    expect(b.result).toEqual({
      ok: false,
      error: { kind: "exhausted", first: { endpoint: "b", error: "x" } },
    });
  });

  it("served by the first hop is not a fall-back", async () => {
    const out = await run(["a", "b"], undefined, () => served("v"), always);
    expect(out.fellBack()).toBe(false);
  });

  it("a deadline already passed gives deadlineExceeded with no hops", async () => {
    const clock = new ManualClock(5000);
    const attempt = vi.fn(() => served("v"));
    const out = await run(["a"], 5000, attempt, always, { clock });
    expect(out.result).toEqual({ ok: false, error: { kind: "deadlineExceeded" } });
    expect(out.hops).toEqual([]);
    expect(attempt).not.toHaveBeenCalled();
  });

  it("an empty list is exhausted with nothing in it", async () => {
    const out = await run([], undefined, () => served("v"), always);
    expect(out.result).toEqual({ ok: false, error: { kind: "exhausted" } });
  });

  it("a throwing attempt fails its hop, and the chain goes on", async () => {
    const attempt: Attempt<string> = (e) => {
      if (e === "a") throw new Error("bug");
      return { kind: "served", value: e };
    };
    const out = await run(["a", "b"], undefined, attempt, always);
    expect(out.result).toEqual({ ok: true, endpoint: "b", value: "b" });
  });
});

describe("run: AbortSignal and events (extension)", () => {
  it("the deadline aborts the signal attempts receive", async () => {
    const clock = new ManualClock();
    const seen: unknown[] = [];
    const attempt: Attempt<string, unknown> = async (_e, _i, signal) => {
      try {
        await clock.sleep(60_000, signal);
        return served("late");
      } catch (error) {
        seen.push(error);
        return { kind: "failed", error };
      }
    };
    const out = await clock.run(run(["a", "b"], 1500, attempt, always, { clock }));
    expect(clock.now()).toBe(1500);
    expect(seen).toEqual([expect.any(DeadlineExceededError)]);
    expect(out.hops).toHaveLength(1);
    expect(out.result.ok).toBe(false);
  });

  it("a caller abort stops the chain before its next hop", async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async (_e: string, _i: number, signal: AbortSignal) => {
      controller.abort(new Error("client left"));
      expect(signal.aborted).toBe(true);
      return failed("503");
    });
    const out = await run(["a", "b"], undefined, attempt, always, { signal: controller.signal });
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(out.result).toEqual({ ok: false, error: { kind: "aborted", reason: new Error("client left") } });
    expect(out.hops).toHaveLength(1);
  });

  it("reports every hop with its index", async () => {
    const events: HopEvent<string, string>[] = [];
    const clock = new ManualClock(42);
    await run(["a", "b"], undefined, (e) => (e === "b" ? served("ok") : failed("x")), always, {
      clock,
      onHop: (e) => events.push(e),
    });
    expect(events).toEqual([
      { endpoint: "a", index: 0, hop: failed("x"), at: 42 },
      { endpoint: "b", index: 1, hop: served("ok"), at: 42 },
    ]);
  });

  it("cancels its deadline timer when it ends", async () => {
    const clock = new ManualClock();
    await run(["a"], 10_000, () => served("v"), always, { clock });
    expect(clock.pending).toBe(0);
  });
});
