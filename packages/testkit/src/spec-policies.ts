import type { RateLimitConfig } from "@resil/limit";

/** The policy of @resil/limit docs/protocol.md#s6-1: fixed window, 50 rps, local allowance 0.8, cacheTtl 500 ms. */
export const FIXED_50: RateLimitConfig = {
  algorithm: "fixed_window",
  requestsPerSecond: 50,
  localAllowance: 0.8,
  cacheTtlMs: 500,
};
