import { describe, expect, it } from "vitest";
import { parseCli } from "../src/args.js";
import { ArgsError } from "../src/errors.js";
import { parseScenario } from "../src/scenario.js";

describe("--settle", () => {
  it("reads LO..HI and LO..HI@MS onto the scenario's settle field", () => {
    expect(parseCli(["--settle", "0.5..2"]).overrides.settle).toEqual({ min: 0.5, max: 2 });
    expect(parseCli(["--settle", "1..1.5@250"]).overrides.settle).toEqual({ min: 1, max: 1.5, afterMs: 250 });
    expect(parseScenario({ settle: { min: 0.5, max: 2 } }).settle).toEqual({
      min: 0.5,
      max: 2,
      afterMs: 100,
    });
  });

  it("names the flag when the range is malformed or reversed", () => {
    expect(() => parseCli(["--settle", "2"])).toThrow(ArgsError);
    expect(() => parseCli(["--settle", "2..0.5"])).toThrow(/--settle/);
    expect(() => parseScenario({ settle: { min: 2, max: 1 } })).toThrow(/settle\.max/);
  });
});
