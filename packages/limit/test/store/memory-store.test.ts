import { describe, expect, it } from "vitest";
import {
  type ConcurrencyRequest,
  ManualClock,
  MemoryStore,
  type RateRequest,
  StoreRequestError,
  StoreUnavailableError,
} from "../../src/index.js";
import { rate, T0 } from "./rate-request.js";

function conc(over: Partial<ConcurrencyRequest> = {}): ConcurrencyRequest {
  return {
    key: "cc2:{t:k}:3",
    pod: "a",
    active: 0,
    unused: 0,
    want: 0,
    need: 0,
    max: 3,
    allowance: 0.8,
    replicas: 4,
    leaseTtlMs: 5000,
    ...over,
  };
}

describe("MemoryStore rate (docs/protocol.md#s5 cases)", () => {
  it("grants a fair share, and the next replica sees it as others'", () => {
    const store = new MemoryStore();
    const a = store.rate(rate({ pod: "a", want: 1000 }), T0);
    expect(a).toMatchObject({ kept: 0, avail: 100, granted: 20, direct: 0, others: 0 });
    const b = store.rate(rate({ pod: "b", want: 1000 }), T0 + 1);
    expect(b).toMatchObject({ others: 20, avail: 80, granted: 16 });
  });

  it("never lets usage plus leases pass the limit while others hold leases", () => {
    const store = new MemoryStore();
    let t = T0;
    for (const pod of ["b", "c", "d"]) store.rate(rate({ pod, want: 1000 }), t++);
    let spent = 0;
    let held = 0;
    for (let i = 0; i < 200; i++) {
      // a spends everything it holds and asks again
      const r = store.rate(rate({ pod: "a", hits: held, want: 1000, need: 1 }), t++);
      spent += held + r.direct;
      held = r.kept + r.granted;
      expect(r.others).toBe(20 + 16 + 12);
    }
    const cluster = spent + held + 20 + 16 + 12;
    expect(cluster).toBeLessThanOrEqual(100);
    expect(cluster).toBeGreaterThanOrEqual(95);
  });

  it("drops a lease once its expiry is reached (expiry <= now)", () => {
    const store = new MemoryStore();
    store.rate(rate({ pod: "b", want: 1000 }), 60_000);
    expect(store.rate(rate({ pod: "a" }), 62_999).others).toBe(20);
    expect(store.rate(rate({ pod: "a" }), 63_000).others).toBe(0);
    store.rate(rate({ pod: "b", want: 1000 }), 60_000 + 10_000);
    expect(store.rate(rate({ pod: "a" }), 63_001 + 10_000).others).toBe(0);
  });

  it("admits waiters directly from what is left: 3/s, need 2 three times", () => {
    const store = new MemoryStore();
    const r = (t: number) =>
      store.rate(rate({ windows: [{ limit: 3, windowMs: 1000, burst: 3 }], need: 2 }), t);
    const got = [r(T0), r(T0 + 10), r(T0 + 20)].map((x) => [x.granted, x.direct]);
    expect(got).toEqual([
      [0, 2],
      [0, 1],
      [0, 0],
    ]);
  });

  it("keeps unused credit only up to what it held, and gives the rest back", () => {
    const store = new MemoryStore();
    store.rate(rate({ pod: "a", want: 1000 }), T0); // holds 20
    const r = store.rate(rate({ pod: "a", unused: 50, want: 0 }), T0 + 1);
    expect(r.kept).toBe(20);
    const back = store.rate(rate({ pod: "a", unused: 5 }), T0 + 2);
    expect(back.kept).toBe(5);
    expect(store.rate(rate({ pod: "b" }), T0 + 3).others).toBe(5);
  });

  it("without a live lease keeps at most what is available", () => {
    const store = new MemoryStore();
    store.rate(rate({ hits: 97 }), T0);
    expect(store.rate(rate({ pod: "z", unused: 10 }), T0 + 1)).toMatchObject({ kept: 3, avail: 3 });
  });

  it("charges old hits to their window and new hits to now", () => {
    const store = new MemoryStore();
    const w = [{ limit: 100, windowMs: 1000, burst: 100 }];
    store.rate(rate({ alg: 1, windows: w }), T0 + 500);
    const r = store.rate(rate({ alg: 1, windows: w, hitsOld: 7, tOld: T0 + 998, hits: 4 }), T0 + 1000);
    expect(r.windows[0]).toMatchObject({ idx: (T0 + 1000) / 1000, cur: 4, prev: 7 });
  });

  it("charges old hits dated after its now at now: in the current window, never a later one", () => {
    const store = new MemoryStore();
    const w = [{ limit: 100, windowMs: 1000, burst: 100 }];
    const r = store.rate(rate({ windows: w, hitsOld: 6, tOld: T0 + 1200 }), T0 + 900);
    expect(r.windows[0]).toMatchObject({ idx: T0 / 1000, cur: 6 });
    // a fixed window's earlier window is over: admits dated in it are not charged to this one
    const late = store.rate(rate({ windows: w, hitsOld: 5, tOld: T0 + 990 }), T0 + 1010);
    expect(late.windows[0]).toMatchObject({ idx: T0 / 1000 + 1, cur: 0 });
  });

  it("records direct admits in every window and reports debt as a negative avail", () => {
    const store = new MemoryStore();
    const w = [
      { limit: 5, windowMs: 1000, burst: 5 },
      { limit: 50, windowMs: 60_000, burst: 50 },
    ];
    const r = store.rate(rate({ windows: w, need: 2 }), T0);
    expect(r.direct).toBe(2);
    expect(r.windows.map((s) => s.cur)).toEqual([2, 2]);
    expect(store.rate(rate({ windows: w, hits: 10 }), T0 + 1).avail).toBe(-7);
  });

  it("resets the windows when the stored window count differs", () => {
    const store = new MemoryStore();
    store.rate(rate({ hits: 30 }), T0);
    const two = [
      { limit: 100, windowMs: 60_000, burst: 100 },
      { limit: 10, windowMs: 1000, burst: 10 },
    ];
    const r = store.rate(rate({ windows: two }), T0 + 1);
    expect(r.windows.map((s) => s.cur)).toEqual([0, 0]);
  });

  it("reads negative or fractional counts as whole non-negative numbers", () => {
    const store = new MemoryStore();
    const r = store.rate(rate({ hits: -5, want: 30.9, need: -1, unused: Number.NaN }), T0);
    expect(r).toMatchObject({ kept: 0, granted: 20, direct: 0 });
    expect(r.windows[0]!.cur).toBe(0);
  });

  it("rejects requests no store can act on, naming the field", () => {
    const store = new MemoryStore();
    expect(() => store.rate(rate({ windows: [] }), T0)).toThrow(StoreRequestError);
    expect(() => store.rate(rate({ windows: [{ limit: 0, windowMs: 1000, burst: 0 }] }), T0)).toThrow(
      /windows\[0\]\.limit/,
    );
    expect(() => store.rate(rate({ pod: "" }), T0)).toThrow(/pod/);
    expect(() => store.rate(rate({ alg: 7 as 0 }), T0)).toThrow(/alg/);
    expect(() => store.rate(rate({ leaseTtlMs: 0 }), T0)).toThrow(/leaseTtlMs/);
  });

  it("keeps a lease forever with an infinite lease (local-only engine)", () => {
    const store = new MemoryStore();
    store.rate(rate({ pod: "b", want: 1000, leaseTtlMs: Number.POSITIVE_INFINITY }), T0);
    expect(store.rate(rate({ pod: "a" }), T0 + 59_000).others).toBe(20);
  });

  it("forgets a key once its TTL (2 x largest window + lease + 1 s) has passed", () => {
    const store = new MemoryStore();
    const w = [{ limit: 10, windowMs: 1000, burst: 10 }];
    store.rate(rate({ alg: 2, windows: w, hits: 5 }), T0);
    const kept = store.rate(rate({ alg: 2, windows: w }), T0 + 5000);
    expect(kept.windows[0]!.tat).toBe(T0 + 5000);
    store.rate(rate({ alg: 2, windows: w, hits: 5 }), T0 + 10_000);
    expect(
      store.rate(rate({ alg: 2, windows: w, hitsOld: 1, tOld: T0 + 9000 }), T0 + 15_001).windows[0]!.tat,
    ).toBe(T0 + 15_001);
  });
});

describe("MemoryStore turns (extension: the longest-waiting replica goes first)", () => {
  const second = [{ limit: 2, windowMs: 1000, burst: 2 }];
  const ask = (pod: string, over: Partial<RateRequest> = {}) =>
    rate({ pod, windows: second, need: 1, leaseTtlMs: 6000, ...over }); // turns last 2 s

  it("holds one unit per older ticket against younger askers, grants included", () => {
    const store = new MemoryStore();
    store.rate(ask("x", { hits: 2, need: 0 }), T0);
    expect(store.rate(ask("b"), T0 + 1)).toMatchObject({ others: 0, direct: 0 });
    expect(store.rate(ask("c", { want: 10 }), T0 + 2)).toMatchObject({ others: 1, direct: 0 });
    // next second: 2 free, b is first in line, so c (and a newcomer) see one of them held
    expect(store.rate(ask("d", { want: 10, need: 0 }), T0 + 1001)).toMatchObject({
      others: 2,
      avail: 0,
      granted: 0,
    });
    expect(store.rate(ask("c", { want: 10, replicas: 1, allowance: 1 }), T0 + 1002)).toMatchObject({
      others: 1,
      avail: 1,
      granted: 1,
      direct: 0,
    });
    // b, first in line, takes the unit kept for it (others: c's lease of 1)
    expect(store.rate(ask("b"), T0 + 1003)).toMatchObject({ others: 1, avail: 1, direct: 1 });
  });

  it("a ticket without a request to take it lapses after a third of the lease", () => {
    const store = new MemoryStore();
    store.rate(ask("x", { hits: 2, need: 0 }), T0);
    store.rate(ask("b", { leaseTtlMs: 3000 }), T0 + 1); // ticket, expiry T0 + 1 + 1000
    expect(store.rate(ask("c", { need: 0 }), T0 + 1000).others).toBe(1);
    expect(store.rate(ask("c", { need: 0 }), T0 + 1001).others).toBe(0);
  });

  it("keeps the place of a replica asking again unserved, and a served one goes to the back", () => {
    const store = new MemoryStore();
    store.rate(ask("x", { hits: 2, need: 0 }), T0);
    store.rate(ask("b"), T0 + 1); // ticket 1
    store.rate(ask("c"), T0 + 2); // ticket 2
    store.rate(ask("b"), T0 + 900); // still waiting: keeps ticket 1, expiry renewed
    expect(store.rate(ask("c", { need: 0 }), T0 + 1500).others).toBe(1);
    expect(store.rate(ask("b"), T0 + 1501).direct).toBe(1); // served: its ticket goes
    expect(store.rate(ask("b", { need: 0 }), T0 + 1502).others).toBe(1); // now c is ahead of b
  });

  it("takes no ticket for an ask that got all it wanted, below its batch (a stale view, not a shortage)", () => {
    const store = new MemoryStore();
    // b waited on a stale view: one request, no credit asked, a batch of 5; it is admitted directly
    expect(store.rate(ask("b", { want: 0, batch: 5 }), T0)).toMatchObject({ granted: 0, direct: 1 });
    // nothing held for b: c sees no ticket ahead
    expect(store.rate(ask("c", { need: 0 }), T0 + 1).others).toBe(0);
    // left short (3 credits asked, 1 unit left in the window) it takes one: c sees b's lease and ticket
    expect(store.rate(ask("b", { want: 3, batch: 5 }), T0 + 2)).toMatchObject({ granted: 1, direct: 0 });
    expect(store.rate(ask("c", { need: 0 }), T0 + 3).others).toBe(2);
  });

  it("release drops the pod's turn", async () => {
    const store = new MemoryStore();
    store.rate(ask("x", { hits: 2, need: 0 }), T0);
    store.rate(ask("b"), T0 + 1);
    await store.round({ now: T0 + 2, releases: [{ key: rate().key, pod: "b" }], rates: [], concurrency: [] });
    expect(store.rate(ask("c", { need: 0 }), T0 + 3).others).toBe(0);
  });
});

describe("MemoryStore concurrency (docs/protocol.md#s5 cases)", () => {
  it("counts absolute reports, admits a waiter, and frees slots when leases expire", () => {
    const store = new MemoryStore();
    const first = store.concurrency(conc({ pod: "a", active: 2 }), T0);
    expect(first).toMatchObject({ others: 0, kept: 0, granted: 0, direct: 0 });
    expect(store.concurrency(conc({ pod: "a", active: 2 }), T0)).toEqual(first);
    expect(store.concurrency(conc({ pod: "b", need: 1 }), T0 + 1)).toMatchObject({ others: 2, direct: 1 });
    expect(store.concurrency(conc({ pod: "b", active: 1, need: 1 }), T0 + 2)).toMatchObject({
      others: 2,
      direct: 0,
    });
    expect(store.concurrency(conc({ pod: "b", active: 1, need: 1 }), T0 + 5001)).toMatchObject({
      others: 0,
      direct: 1,
    });
  });

  it("keeps what the lease covers beyond the active slots", () => {
    const store = new MemoryStore();
    const g = store.concurrency(conc({ max: 20, want: 10, allowance: 1, replicas: 1 }), T0);
    expect(g.granted).toBe(10);
    const k = store.concurrency(conc({ max: 20, active: 4, unused: 10 }), T0 + 1);
    expect(k.kept).toBe(6);
  });
});

describe("MemoryStore heartbeat (docs/protocol.md#s5 case)", () => {
  it("counts live replicas in the window, never below 1", () => {
    const store = new MemoryStore();
    const hb = (pod: string, t: number, leave = false) =>
      store.heartbeat({ key: "rl2:{t}:pods", pod, windowMs: 3000, leave }, T0 + t).replicas;
    expect(hb("a", 0)).toBe(1);
    expect(hb("b", 1)).toBe(2);
    expect(hb("a", 3500)).toBe(1);
    expect(hb("a", 3600, true)).toBe(1);
  });
});

describe("MemoryStore release and round", () => {
  it("release drops the pod's rate and concurrency leases", async () => {
    const store = new MemoryStore();
    store.rate(rate({ pod: "b", want: 1000 }), T0);
    store.concurrency(conc({ key: "rl2:{t:k}:0000000000000001", pod: "b", active: 1 }), T0);
    await store.round({ now: T0 + 1, releases: [{ key: rate().key, pod: "b" }], rates: [], concurrency: [] });
    expect(store.rate(rate({ pod: "a" }), T0 + 2).others).toBe(0);
    expect(store.concurrency(conc({ key: rate().key, pod: "a" }), T0 + 2).others).toBe(0);
  });

  it("runs a round in order and uses the clock when no time is given", async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore(clock);
    const reply = await store.round({
      releases: [],
      rates: [rate({ want: 1000 }), rate({ pod: "b", want: 1000 })],
      concurrency: [conc({ active: 1 })],
      heartbeat: { key: "rl2:{t}:pods", pod: "a", windowMs: 3000, leave: false },
    });
    expect(reply.rates.map((r) => r.granted)).toEqual([20, 16]);
    expect(reply.rates[0]!.now).toBe(T0);
    expect(reply.concurrency[0]).toMatchObject({ now: T0, others: 0 });
    expect(reply.heartbeat).toEqual({ now: T0, replicas: 1 });
    expect(store.rounds).toBe(1);
  });

  it("rejects rounds while failing, counts them, and recovers", async () => {
    const store = new MemoryStore(new ManualClock(T0));
    store.setFailing(true);
    await expect(store.round({ releases: [], rates: [rate()], concurrency: [] })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    store.setFailing(false);
    await expect(store.round({ releases: [], rates: [rate()], concurrency: [] })).resolves.toBeDefined();
    expect(store.rounds).toBe(2);
  });

  it("with latency, runs at half the delay and resolves after all of it on the store's clock", async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore(clock);
    store.setLatency(40);
    let done = false;
    const p = store.round({ releases: [], rates: [rate()], concurrency: [] }).then((r) => {
      done = true;
      return r;
    });
    await clock.advanceAsync(39);
    expect(done).toBe(false);
    await clock.advanceAsync(1);
    expect(done).toBe(true);
    expect((await p).rates[0]!.now).toBe(T0 + 20);
    expect(() => store.setLatency(-1)).toThrow(RangeError);
  });
});
