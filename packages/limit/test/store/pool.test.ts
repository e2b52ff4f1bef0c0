// Fair shares for mixed costs (docs/protocol.md#s3-9): the store keeps a large waiting request's
// units together (the key's pool); smaller asks leave them, the next ask as large takes them.

import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/index.js";
import { grantStep } from "../../src/store/grant.js";
import { poolGrantStep } from "../../src/store/pool.js";
import { rate, T0 } from "./rate-request.js";

describe("poolGrantStep", () => {
  it("is the plain grant step without a pool and without a large request waiting", () => {
    expect(poolGrantStep(10, 5, 3, 0.8, 4, 0, 0, 0, 0)).toEqual(grantStep(10, 5, 3, 0.8, 4, 0));
    expect(poolGrantStep(10, 100, 1, 0.1, 4, 6, 1, 0, 0)).toEqual(grantStep(10, 100, 1, 0.1, 4, 6));
  });

  it("admits no part of a large request it cannot cover, only the smaller ones waiting beside it", () => {
    // 30 free, a cost-50 request and a cost-1 one waiting: 1 direct (not 24), and no credit ahead
    // (6 before: held in a lease, those units would not fill the pool for the next large request)
    expect(poolGrantStep(30, 10, 51, 0.8, 4, 0, 50, 0, 0)).toEqual({ granted: 0, direct: 1 });
    // asking for a batch changes nothing while the large request is short
    expect(poolGrantStep(30, 10, 50, 0.8, 4, 3, 50, 50, 0)).toEqual({ granted: 0, direct: 0 });
    // enough free: the large request is admitted direct
    expect(poolGrantStep(60, 0, 50, 0.8, 4, 0, 50, 0, 0)).toEqual({ granted: 0, direct: 50 });
    // credit it keeps counts toward it
    expect(poolGrantStep(30, 0, 50, 0.8, 4, 0, 50, 0, 20)).toEqual({ granted: 0, direct: 30 });
  });

  it("grants an ask that leaves the pool credit ahead only beyond one more pool", () => {
    expect(poolGrantStep(30, 10, 2, 0.8, 4, 0, 0, 50, 0)).toEqual({ granted: 0, direct: 2 });
    expect(poolGrantStep(200, 100, 0, 0.8, 4, 0, 0, 50, 0)).toEqual({ granted: 30, direct: 0 });
    // an ask as large as the pool grants from all that is free
    expect(poolGrantStep(200, 100, 50, 0.8, 4, 0, 50, 50, 0)).toEqual({ granted: 40, direct: 10 });
  });
});

describe("MemoryStore pool", () => {
  // token bucket, 100 a second: a unit frees every 10 ms
  const bucket = (over: Parameters<typeof rate>[0]) =>
    rate({ alg: 2, windows: [{ limit: 100, windowMs: 1000, burst: 100 }], ...over });

  it("keeps a large request's units free from smaller asks until an ask as large takes them", () => {
    const store = new MemoryStore();
    // 70 used: a's cost-50 request is short (30 free) and gets no part of itself; the pool is 50
    expect(store.rate(bucket({ pod: "a", hits: 70, need: 50, head: 50 }), T0)).toMatchObject({
      avail: 30,
      direct: 0,
    });
    // b's cost-1 request leaves the pool, and a unit for a's ticket (docs/protocol.md#s3-5): none for b
    expect(store.rate(bucket({ pod: "b", need: 1 }), T0 + 1)).toMatchObject({
      avail: -21,
      direct: 0,
      others: 51,
    });
    // 300 ms later 60 are free: c's cost-50 request takes 50, and the pool stays for the next
    expect(store.rate(bucket({ pod: "c", need: 50, head: 50 }), T0 + 300)).toMatchObject({
      avail: 60,
      direct: 50,
      others: 0, // the pool is its turn: no unit for a's and b's tickets
    });
    expect(store.rate(bucket({ pod: "b", need: 1 }), T0 + 301)).toMatchObject({ avail: -41, direct: 0 });
    // units beyond the pool go to smaller requests
    expect(store.rate(bucket({ pod: "b", need: 3 }), T0 + 800)).toMatchObject({ avail: 9, direct: 3 });
  });

  it("lets the pool lapse a third of the lease after the last ask as large", () => {
    const store = new MemoryStore();
    store.rate(bucket({ pod: "a", hits: 70, need: 50, head: 50 }), T0);
    expect(store.rate(bucket({ pod: "b", need: 1 }), T0 + 999)).toMatchObject({ others: 51 });
    expect(store.rate(bucket({ pod: "b", need: 1 }), T0 + 1000)).toMatchObject({ others: 0, direct: 1 });
  });

  it("a fixed window keeps a served large request's pool to its end: its last units wait for the next", () => {
    const store = new MemoryStore();
    // 70 free: a's cost-50 request is covered and keeps a pool of 50 for the next one
    expect(store.rate(rate({ pod: "a", hits: 30, need: 50, head: 50 }), T0)).toMatchObject({ direct: 50 });
    // 20 free, fewer than the pool: b's cost-1 request still leaves them (given to it, cost-1
    // requests would take more than their share of the units)
    expect(store.rate(rate({ pod: "b", need: 1, want: 100 }), T0 + 1)).toMatchObject({
      avail: -30,
      granted: 0,
      direct: 0,
      others: 50,
    });
  });

  it("a fixed window keeps no pool for a large request left short: nothing frees before its end", () => {
    const store = new MemoryStore();
    store.rate(rate({ pod: "a", hits: 80, need: 50, head: 50 }), T0);
    expect(store.rate(rate({ pod: "b", need: 1 }), T0 + 1)).toMatchObject({
      avail: 19,
      direct: 1,
      others: 1, // a's ticket
    });
  });
});
