// A boundary walks the awake keys only when some policy's shortest window ends there. This file
// shapes per-minute policies only (the set of windows is per process, and vitest isolates files).
import { expect, it } from "vitest";
import { ratePolicy } from "../../src/cluster/config.js";
import { RateKeyState } from "../../src/cluster/rate-key.js";
import { someWindowEndsAt } from "../../src/cluster/rate-key-parts.js";
import { snapshotBoundary } from "../../src/cluster/schedule.js";

const MINUTE = 60_000;

it("a per-minute key is snapshotted at the minute's boundary, and no other second walks it", () => {
  const k = new RateKeyState(
    "k",
    "rl2:{s:k}:0",
    ratePolicy({ algorithm: "sliding_window", requestsPerMinute: 600 })!,
    false,
  );
  k.admitted = 4;
  const before = k.boundaryAdmitted;
  const minute = 40 * MINUTE;
  expect(someWindowEndsAt(minute + 1000)).toBe(false);
  expect(snapshotBoundary([k], minute + 1000)).toBe(false);
  expect(k.boundaryAdmitted).toBe(before);
  expect(someWindowEndsAt(minute + MINUTE)).toBe(true);
  expect(snapshotBoundary([k], minute + MINUTE)).toBe(true);
  expect(k.boundaryAdmitted).toBe(4);
  // a per-second policy shaped later makes every second a boundary with work
  new RateKeyState(
    "s",
    "rl2:{s:s}:0",
    ratePolicy({ algorithm: "fixed_window", requestsPerSecond: 10 })!,
    false,
  );
  expect(someWindowEndsAt(minute + 1000)).toBe(true);
});
