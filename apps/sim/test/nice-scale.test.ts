import { describe, expect, it } from "vitest";
import { niceScale, tickLabel } from "../src/nice-scale.js";

describe("niceScale", () => {
  it.each([
    [1118, 200, 1200],
    [100, 20, 100],
    [101, 20, 120],
    [7, 2, 8],
    [0.37, 0.1, 0.4],
    [0, 0.2, 1],
    [3_600, 1000, 4000],
  ])("max %d: step %d, top %d", (max, step, top) => {
    const s = niceScale(max);
    expect(s.step).toBeCloseTo(step, 12);
    expect(s.top).toBeCloseTo(top, 12);
    expect(s.ticks[0]).toBe(0);
    expect(s.ticks.at(-1)).toBe(s.top);
  });

  it("writes labels without floating-point noise", () => {
    expect(niceScale(0.37).ticks.map((t) => tickLabel(t, 0.1))).toEqual(["0.0", "0.1", "0.2", "0.3", "0.4"]);
    expect(tickLabel(1200, 200)).toBe("1200");
  });
});
