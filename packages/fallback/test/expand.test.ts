import { describe, expect, it } from "vitest";
import { expand, FallbackConfigError } from "../src/index.js";

describe("expand: depth-first with cycles cut", () => {
  const graph = { A: ["B", "D"], B: ["C", "A"], C: ["A"] };

  it("walks depth-first, pre-order, cutting cycles", () => {
    expect(expand("A", graph, 10)).toEqual(["A", "B", "C", "D"]);
  });

  it("cuts a self-loop", () => {
    expect(expand("A", { A: ["A"] }, 10)).toEqual(["A"]);
  });

  it("stops at maxHops entries including the primary", () => {
    expect(expand("A", graph, 2)).toEqual(["A", "B"]);
  });
});

describe("expand: more", () => {
  it("always returns the primary, even with maxHops 0 or below", () => {
    expect(expand("A", { A: ["B"] }, 0)).toEqual(["A"]);
    expect(expand("A", { A: ["B"] }, -4)).toEqual(["A"]);
  });

  it("follows only a node's first 5 fallbacks", () => {
    const many = { A: ["1", "2", "3", "4", "5", "6", "7"] };
    expect(expand("A", many, 100)).toEqual(["A", "1", "2", "3", "4", "5"]);
  });

  it("reaches a 6th fallback through another node's list", () => {
    expect(expand("A", { A: ["1", "2", "3", "4", "5", "6"], "1": ["6"] }, 100)).toEqual([
      "A",
      "1",
      "6",
      "2",
      "3",
      "4",
      "5",
    ]);
  });

  it("takes a function or a Map", () => {
    expect(expand("A", (n) => (n === "A" ? ["B"] : undefined), 5)).toEqual(["A", "B"]);
    expect(expand("A", new Map([["A", ["C"]]]), 5)).toEqual(["A", "C"]);
  });

  it("ignores inherited record keys", () => {
    expect(expand("toString", {}, 5)).toEqual(["toString"]);
  });

  it("rejects a NaN maxHops, naming it", () => {
    expect(() => expand("A", {}, Number.NaN)).toThrow(FallbackConfigError);
    expect(() => expand("A", {}, Number.NaN)).toThrow(/maxHops/);
  });
});
