import { describe, expect, it } from "vitest";
import { deadlineIn, systemClock } from "../src/index.js";

describe("systemClock", () => {
  it("sleeps", async () => {
    const start = systemClock.now();
    await systemClock.sleep(5);
    expect(systemClock.now()).toBeGreaterThan(start);
  });

  it("ends a sleep on abort with the signal's reason", async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
  });

  it("rejects at once on an aborted signal", async () => {
    await expect(systemClock.sleep(60_000, AbortSignal.abort(new Error("already")))).rejects.toThrow(
      "already",
    );
  });

  it("deadlineIn is now plus ms on the clock's timeline", () => {
    expect(deadlineIn(500, { now: () => 1000 })).toBe(1500);
  });
});
