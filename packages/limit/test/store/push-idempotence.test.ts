// Idempotent rounds: a push resent after its round timed out (yet was applied) is charged once.

import { describe, expect, it } from "vitest";
import { MemoryStore, StoreRequestError } from "../../src/index.js";
import { unchargedHits } from "../../src/store/request.js";
import { rate, T0 } from "./rate-request.js";

describe("unchargedHits", () => {
  it("drops what the remembered total covers, older hits first", () => {
    expect(unchargedHits(undefined, 10, 4, 2)).toEqual({ hits: 4, hitsOld: 2 });
    expect(unchargedHits(4, 10, 4, 2)).toEqual({ hits: 4, hitsOld: 2 }); // base 4: nothing seen
    expect(unchargedHits(5, 10, 4, 2)).toEqual({ hits: 4, hitsOld: 1 });
    expect(unchargedHits(7, 10, 4, 2)).toEqual({ hits: 3, hitsOld: 0 });
    expect(unchargedHits(10, 10, 4, 2)).toEqual({ hits: 0, hitsOld: 0 });
    expect(unchargedHits(99, 10, 4, 2)).toEqual({ hits: 0, hitsOld: 0 });
  });
});

describe("MemoryStore push ids", () => {
  it("charges a resent push once, and only the new hits of a larger resend", () => {
    const s = new MemoryStore();
    const first = s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0);
    expect(first.windows[0]!.cur).toBe(5);
    expect(s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0 + 1).windows[0]!.cur).toBe(5);
    // reverted and resent with 3 more: base 0, total 8 -> only 3 are new
    expect(s.rate(rate({ hits: 8, pushId: "x1", pushTotal: 8 }), T0 + 2).windows[0]!.cur).toBe(8);
    // the next push starts at 8
    expect(s.rate(rate({ hits: 2, pushId: "x1", pushTotal: 10 }), T0 + 3).windows[0]!.cur).toBe(10);
  });

  it("keeps push ids apart per id and per pod; no id charges everything", () => {
    const s = new MemoryStore();
    s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0);
    expect(s.rate(rate({ hits: 5, pushId: "x2", pushTotal: 5 }), T0).windows[0]!.cur).toBe(10);
    expect(s.rate(rate({ pod: "b", hits: 5, pushId: "x1", pushTotal: 5 }), T0).windows[0]!.cur).toBe(15);
    expect(s.rate(rate({ hits: 5 }), T0).windows[0]!.cur).toBe(20);
  });

  it("forgets a push total after the lease's life", () => {
    const s = new MemoryStore();
    s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0);
    expect(s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0 + 2999).windows[0]!.cur).toBe(5);
    expect(s.rate(rate({ hits: 5, pushId: "x1", pushTotal: 5 }), T0 + 2999 + 3000).windows[0]!.cur).toBe(10);
  });

  it("rejects a push id that would break the field name", () => {
    const s = new MemoryStore();
    expect(() => s.rate(rate({ hits: 1, pushId: "a:b", pushTotal: 1 }), T0)).toThrow(StoreRequestError);
    expect(() => s.rate(rate({ hits: 1, pushId: "x".repeat(65), pushTotal: 1 }), T0)).toThrow(/pushId/);
  });
});
