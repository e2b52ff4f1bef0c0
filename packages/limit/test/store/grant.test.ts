import { describe, expect, it } from "vitest";
import { grantStep } from "../../src/store-kit.js";

describe("grantStep (docs/protocol.md#s3-5 step 5)", () => {
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

describe("grantStep with a batch (extension)", () => {
  const cases: Array<[number, number, number, number, number, number, number, number]> = [
    // free, want, need, allowance, replicas, batch -> granted, direct
    [10, 100, 1, 0.1, 4, 6, 6, 0], // a waiting replica takes its batch as credit
    [3, 100, 2, 0.1, 4, 6, 3, 0], // no more than is free
    [10, 2, 3, 0.1, 4, 6, 2, 1], // no more than it wants; the rest of its waiters direct
    [10, 100, 0, 0.1, 4, 6, 0, 0], // nobody waiting: the plain fair share
    [100, 100, 1, 1, 2, 3, 50, 0], // a batch below the fair share changes nothing
    [0.9, 100, 1, 0.1, 4, 6, 0, 0], // nothing free
  ];
  for (const [free, want, need, a, n, batch, granted, direct] of cases) {
    it(`(${free}, ${want}, ${need}, ${a}, ${n}, batch ${batch}) -> (${granted}, ${direct})`, () => {
      expect(grantStep(free, want, need, a, n, batch)).toEqual({ granted, direct });
    });
  }
});
