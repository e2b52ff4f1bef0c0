import { describe, expect, it } from "vitest";
import { offShare } from "../src/cases/http.js";

describe("http case: a row that did not deny its scenario's share says so", () => {
  it("90 % denied within 5 points, or all admitted: no warning", () => {
    expect(offShare(true, [{ deniedPct: 90 }, { deniedPct: 88.2 }])).toBe("");
    expect(offShare(false, [{ deniedPct: 0 }, { deniedPct: 0 }])).toBe("");
  });

  it("a deny window that ended mid-run (0 % denied) is named in the note", () => {
    const note = offShare(true, [{ deniedPct: 90 }, { deniedPct: 0 }, { deniedPct: 41.5 }]);
    expect(note).toContain("NOT 90 % DENIED in 2 of 3 samples");
    expect(note).toContain("0, 41.5 %");
  });

  it("denials where all should be admitted are named too", () => {
    expect(offShare(false, [{ deniedPct: 12 }])).toContain("NOT 0 % DENIED in 1 of 1 samples");
  });
});
