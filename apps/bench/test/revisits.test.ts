import { describe, expect, it } from "vitest";
import { Revisits } from "../src/http/revisits.js";

describe("Revisits", () => {
  it("ages only keys sent before, by the last time each was sent", () => {
    const last = new Float64Array(4);
    const first = new Revisits(last);
    first.sent(0, 1000);
    first.sent(1, 1500);
    expect(first.revisits).toBe(0);
    expect(first.medianS()).toBeNaN();
    const second = new Revisits(last);
    second.sent(0, 4000); // 3 s after
    second.sent(1, 11_500); // 10 s after
    second.sent(0, 5000); // 1 s after its send in this run
    second.sent(2, 6000); // never sent before
    expect(second.revisits).toBe(3);
    expect(second.medianS()).toBe(3);
  });

  it("keeps every age past its first buffer", () => {
    const n = 40_000;
    const last = new Float64Array(n).fill(1);
    const r = new Revisits(last);
    for (let i = 0; i < n; i++) r.sent(i, 1 + 1000 * (i + 1));
    expect(r.revisits).toBe(n);
    expect(r.medianS()).toBe(n / 2 + 1);
  });
});
