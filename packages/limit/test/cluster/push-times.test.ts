// How a push dates its admits: near a window's end a round may reach the store after the window
// closed, so the admits it carries are dated at the latest store time they could have been made.
import { describe, expect, it } from "vitest";
import { type RateLimitConfig, ratePolicy } from "../../src/cluster/config.js";
import { hitsChargedNow, pushTimes } from "../../src/cluster/push-times.js";
import { RateKeyState } from "../../src/cluster/rate-key.js";

// 5 s into a minute: a minute window spans the second boundaries below
const T = 1_750_000_025_000;

function key(cfg: RateLimitConfig): RateKeyState {
  return new RateKeyState("k", "rl2:{s:k}:0", ratePolicy(cfg)!, false);
}

describe("pushTimes", () => {
  const fixed = { algorithm: "fixed_window", requestsPerSecond: 50 } as const;

  it("sends admits as new hits away from a window's end", () => {
    expect(pushTimes(key(fixed), 5, 0, T + 500, 20, 5)).toEqual({ hits: 5, hitsOld: 0, tOld: 0 });
  });

  it("dates admits at the latest store time within 100 ms (or 4 round trips) of the end", () => {
    expect(pushTimes(key(fixed), 5, 0, T + 950, 20, 5)).toEqual({ hits: 0, hitsOld: 5, tOld: T + 970 });
    // 4 round trips of 40 ms reach further back than 100 ms
    expect(pushTimes(key(fixed), 5, 0, T + 850, 0, 40)).toEqual({ hits: 0, hitsOld: 5, tOld: T + 850 });
    expect(pushTimes(key(fixed), 5, 0, T + 850, 0, 20).hits).toBe(5);
  });

  it("never dates a token bucket's admits (it has no window to close)", () => {
    const k = key({ algorithm: "token_bucket", requestsPerSecond: 50 });
    expect(pushTimes(k, 5, 0, T + 990, 0, 5)).toEqual({ hits: 5, hitsOld: 0, tOld: 0 });
  });

  it("keeps a boundary snapshot the store still counts; drops one every window has dropped", () => {
    const sliding = key({ algorithm: "sliding_window", requestsPerSecond: 50 });
    sliding.admitted = 9;
    sliding.boundaryAdmitted = 4;
    sliding.boundaryTime = T - 10;
    // the previous window of a sliding window still counts: the snapshot stays, the rest is new
    expect(pushTimes(sliding, 9, 0, T + 950, 0, 5)).toEqual({ hits: 5, hitsOld: 4, tOld: T - 10 });
    const k = key(fixed);
    k.admitted = 9;
    k.boundaryAdmitted = 4;
    k.boundaryTime = T - 10;
    // a fixed window's previous window is over: its snapshot would be dropped by the store anyway
    expect(pushTimes(k, 9, 0, T + 950, 0, 5)).toEqual({ hits: 0, hitsOld: 5, tOld: T + 950 });
    // a minute window still counts it: the snapshot stays
    const multi = key({ algorithm: "fixed_window", requestsPerSecond: 50, requestsPerMinute: 1000 });
    multi.admitted = 9;
    multi.boundaryAdmitted = 4;
    multi.boundaryTime = T - 10;
    expect(pushTimes(multi, 9, 0, T + 950, 0, 5)).toEqual({ hits: 5, hitsOld: 4, tOld: T - 10 });
  });

  it("counts dated hits as charged now when the store's now is in their window, not a snapshot's", () => {
    expect(hitsChargedNow({ hits: 0, hitsOld: 5, tOld: T + 970 }, T + 960, 1000)).toBe(5);
    expect(hitsChargedNow({ hits: 0, hitsOld: 5, tOld: T + 970 }, T + 1010, 1000)).toBe(0);
    expect(hitsChargedNow({ hits: 3, hitsOld: 4, tOld: T - 2 }, T + 10, 1000)).toBe(3);
  });
});
