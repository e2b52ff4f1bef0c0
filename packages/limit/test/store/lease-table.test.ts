import { describe, expect, it } from "vitest";
import { LeaseTable } from "../../src/store/lease-table.js";

describe("LeaseTable", () => {
  it("holds one field inline and more beside it, each rewritten in place", () => {
    const t = new LeaseTable();
    t.hold("a", 5, 100);
    t.hold("b", 7, 100);
    t.hold("c", 1, 100);
    t.hold("a", 6, 200);
    t.hold("b", 8, 200);
    expect(t.size).toBe(3);
    expect([t.creditOf("a"), t.creditOf("b"), t.creditOf("c"), t.creditOf("d")]).toEqual([
      6,
      8,
      1,
      undefined,
    ]);
  });

  it("sums the others' live credit and finds the pod's own, dropping what expired (expiry <= now)", () => {
    const t = new LeaseTable();
    t.hold("me", 4, 50);
    t.hold("x", 10, 100);
    t.hold("y", 20, 50);
    expect(t.collect("me", 49)).toEqual({ mineLive: true, mine: 4, others: 30 });
    // at 50 both "me" (inline) and "y" expire: "x" takes the inline place
    expect(t.collect("me", 50)).toEqual({ mineLive: false, mine: 0, others: 10 });
    expect(t.size).toBe(1);
    expect(t.creditOf("x")).toBe(10);
    expect(t.collect("x", 100)).toEqual({ mineLive: false, mine: 0, others: 0 });
    expect(t.size).toBe(0);
  });

  it("deleting the inline field moves another into its place; a later hold of it is a new field", () => {
    const t = new LeaseTable();
    t.hold("a", 1, 100);
    t.hold("b", 2, 100);
    t.delete("a");
    expect(t.size).toBe(1);
    expect(t.creditOf("a")).toBeUndefined();
    t.hold("a", 3, 100);
    t.delete("b");
    t.delete("missing");
    expect(t.size).toBe(1);
    expect(t.collect("z", 0)).toEqual({ mineLive: false, mine: 0, others: 3 });
  });

  it("saturates the others' sum", () => {
    const t = new LeaseTable();
    t.hold("a", Number.MAX_SAFE_INTEGER, 10);
    t.hold("b", Number.MAX_SAFE_INTEGER, 10);
    expect(t.collect("c", 0).others).toBe(Number.MAX_SAFE_INTEGER);
  });
});
