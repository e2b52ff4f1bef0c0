// The due-time queue behind the sync schedule, idle eviction and store expiry.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TimeQueue } from "../../src/store/time-queue.js";

describe("TimeQueue", () => {
  it("visits items once their slot has started, earliest first, and never the others", () => {
    const q = new TimeQueue<string>(10);
    q.add("c", 35);
    q.add("a", 5);
    q.add("b", 19);
    const seen: string[] = [];
    q.popDue(18, (x) => seen.push(x) > 0);
    expect(seen).toEqual(["a", "b"]); // b's slot [10, 20) has started
    expect(q.nextAt()).toBe(30);
    q.popDue(29, (x) => seen.push(x) > 0);
    expect(seen).toEqual(["a", "b"]);
    q.popDue(1000, (x) => seen.push(x) > 0);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(q.length).toBe(0);
  });

  it("a visit that stops leaves the rest (the stopping item too) queued; items added while visiting are visited", () => {
    const q = new TimeQueue<number>(1);
    for (let i = 0; i < 5; i++) q.add(i, 1);
    const seen: number[] = [];
    q.popDue(1, (x) => (x === 2 ? false : seen.push(x) > 0));
    expect(seen).toEqual([0, 1]);
    expect(q.length).toBe(3);
    q.popDue(1, (x) => {
      seen.push(x);
      if (x === 4) q.add(9, 1);
      return true;
    });
    expect(seen).toEqual([0, 1, 2, 3, 4, 9]);
  });

  it("pops exactly the items due, in slot order (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 10_000 }),
        (times, now) => {
          const q = new TimeQueue<number>(7);
          for (const t of times) q.add(t, t);
          const seen: number[] = [];
          q.popDue(now, (t) => seen.push(t) > 0);
          const due = times.filter((t) => Math.floor(t / 7) <= Math.floor(now / 7));
          expect([...seen].sort((a, b) => a - b)).toEqual(due.sort((a, b) => a - b));
          for (let i = 1; i < seen.length; i++)
            expect(Math.floor(seen[i]! / 7)).toBeGreaterThanOrEqual(Math.floor(seen[i - 1]! / 7));
          expect(q.length).toBe(times.length - due.length);
        },
      ),
    );
  });

  it("resumes a slot visited part way where it stopped, in order, without copying it per visit", () => {
    const q = new TimeQueue<number>(1);
    for (let i = 0; i < 100_000; i++) q.add(i, 5);
    const seen: number[] = [];
    let visits = 0;
    // rounds of 512, as the sync schedule takes them: 196 partial visits of one big slot
    for (let round = 0; round < 1000 && q.length > 0; round++) {
      let room = 512;
      q.popDue(10, (x) => {
        if (room === 0) return false;
        room--;
        seen.push(x);
        return true;
      });
      visits++;
      if (round === 0) {
        q.add(-1, 5); // queued into the slot being worked through: after what was there
        expect(q.length).toBe(100_000 - 512 + 1);
      }
    }
    expect(visits).toBe(Math.ceil(100_001 / 512));
    expect(seen.slice(0, 3)).toEqual([0, 1, 2]);
    expect(seen.at(-1)).toBe(-1);
    expect(seen.length).toBe(100_001);
    for (let i = 1; i < 100_000; i++) expect(seen[i]).toBe(i);
  });
});
