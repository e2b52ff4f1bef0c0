import { describe, expect, it, vi } from "vitest";
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

describe("systemClock.sleep beyond setTimeout's range", () => {
  it("waits in steps setTimeout can hold instead of firing after 1 ms", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const controller = new AbortController();
    try {
      const sleeping = systemClock.sleep(2 ** 31 + 10_000, controller.signal);
      let ended = false;
      sleeping.then(
        () => {
          ended = true;
        },
        () => {
          ended = true;
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ended).toBe(false);
      const delays = spy.mock.calls.map((call) => call[1]);
      expect(delays.every((ms) => ms === undefined || ms <= 2 ** 31 - 1)).toBe(true);
      controller.abort(new Error("stop"));
      await expect(sleeping).rejects.toThrow("stop");
    } finally {
      spy.mockRestore();
    }
  });
});
