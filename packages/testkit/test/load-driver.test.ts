import { describe, expect, it } from "vitest";
import { formatLoad, mergeLoads, msUntilIntoSecond, percentile } from "../src/index.js";

describe("load driver helpers", () => {
  it("sums replicas' counts by Unix second and pools their latencies", () => {
    const merged = mergeLoads([
      {
        seconds: [
          [10, 5, 20],
          [11, 7, 21],
        ],
        latencies: [1, 3],
      },
      {
        seconds: [
          [9, 1, 1],
          [11, 6, 30],
        ],
        latencies: [2],
      },
    ]);
    expect(merged.seconds).toEqual([
      [9, 1, 1],
      [10, 5, 20],
      [11, 13, 51],
    ]);
    expect(merged.latencies).toEqual([1, 2, 3]);
    expect(formatLoad("x", merged)).toMatch(
      /^x: per-second \(admitted, offered\) \[\[1,1\],\[5,20\],\[13,51\]\]; .*p50=2\.000ms.*max=3\.000ms \(n=3\)$/,
    );
  });

  it("waits to a given millisecond of a second, at least a minimum ahead", () => {
    for (const [ms, min] of [
      [950, 0],
      [0, 100],
      [500, 1500],
    ] as const) {
      const wait = msUntilIntoSecond(ms, min);
      expect(wait).toBeGreaterThanOrEqual(min);
      expect(wait).toBeLessThan(min + 1000);
      expect((Date.now() + wait) % 1000).toBeGreaterThanOrEqual(ms - 2); // the clock may tick in between
    }
  });

  it("reads quantiles of a sorted list, 0 when empty", () => {
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(3);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
  });
});
