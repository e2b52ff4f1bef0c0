import type { RateRequest } from "../../src/index.js";

/** A whole minute of store time. */
export const T0 = 1_750_000_020_000;

/** A rate request for one key with a 100/minute fixed window: nothing pushed, nothing asked. */
export function rate(over: Partial<RateRequest> = {}): RateRequest {
  return {
    key: "rl2:{t:k}:0000000000000001",
    alg: 0,
    windows: [{ limit: 100, windowMs: 60_000, burst: 100 }],
    pod: "a",
    hits: 0,
    hitsOld: 0,
    tOld: 0,
    unused: 0,
    want: 0,
    need: 0,
    allowance: 0.8,
    replicas: 4,
    leaseTtlMs: 3000,
    ...over,
  };
}
