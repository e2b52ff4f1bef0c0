import { describe, expect, it } from "vitest";
import { grantStep } from "../../src/index.js";

describe("grantStep (spec 3.5 step 5)", () => {
  const cases: Array<[number, number, number, number, number, number, number]> = [
    // free, want, need, allowance, replicas -> granted, direct
    [100, 1000, 0, 0.8, 4, 20, 0],
    [100, 5, 0, 0.8, 4, 5, 0],
    [3, 10, 2, 0.8, 4, 0, 2],
    [3, 10, 5, 0.8, 4, 0, 3],
    [0.9, 10, 5, 0.8, 4, 0, 0],
    [10, 1, 3, 0.8, 1, 1, 2],
  ];
  for (const [free, want, need, a, n, granted, direct] of cases) {
    it(`(${free}, ${want}, ${need}, ${a}, ${n}) -> (${granted}, ${direct})`, () => {
      expect(grantStep(free, want, need, a, n)).toEqual({ granted, direct });
    });
  }
  it("grants nothing from debt and treats 0 replicas as 1", () => {
    expect(grantStep(-5, 10, 3, 1, 1)).toEqual({ granted: 0, direct: 0 });
    expect(grantStep(10, 100, 0, 1, 0)).toEqual({ granted: 10, direct: 0 });
  });
});
