import { primaryLimit, type Scenario, WINDOW_MS } from "./scenario.js";

/** Share of the limit a run must use up to FLOOR_FLAT_MS of store latency (issue 15's bar). */
export const FLOOR_BASE = 0.9;
/** Store latency (ms) up to which the floor is FLOOR_BASE. */
export const FLOOR_FLAT_MS = 20;

/**
 * The utilisation a run is expected to reach (see @resil/limit docs/protocol.md#s6-faults): 90 % up
 * to 20 ms of store latency d (its mean: latency + jitter / 2); above it each window may lose one
 * more round trip of the limit's rate, the time freed units wait for a starved replica's ask to
 * reach the store and its reply to come back: 0.9 × (1 − (d − 20) / W), W the shortest window. Above
 * cacheTtlMs the wait on a sync (2 round trips, at most cacheTtlMs) no longer covers one round trip:
 * every wait times out and is denied, so no floor is stated there (0).
 */
export function utilisationFloor(s: Scenario): number {
  const d = s.store.latencyMs + s.store.jitterMs / 2;
  if (d <= FLOOR_FLAT_MS) return FLOOR_BASE;
  if (d > s.limiter.cacheTtlMs) return 0;
  const w = WINDOW_MS[primaryLimit(s).window];
  return FLOOR_BASE * (1 - (d - FLOOR_FLAT_MS) / w);
}
