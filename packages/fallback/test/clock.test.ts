import { describe, expect, it } from "vitest";
import { deadlineIn, systemClock } from "../src/index.js";

describe("systemClock", () => {
  it("ends a sleep on abort with the signal's reason", async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
  });

  it("deadlineIn is now plus ms on the clock's timeline", () => {
    expect(deadlineIn(250, { now: () => 1000 })).toBe(1250);
  });
});
