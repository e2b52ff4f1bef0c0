import type { ResolvedOptions } from "./config.js";
import type { LocalWindows } from "./local-counts.js";
import type { StoreHealth } from "./store-health.js";

/** What building and applying a sync reads: the limiter's options and what it knows of the store. */
export interface SyncEnv {
  readonly options: ResolvedOptions;
  readonly health: StoreHealth;
  /** This replica's own window counts: fail-static decisions, and its share after an outage. */
  readonly localWindows: LocalWindows;
}

/** Credit is trusted for this share of its lease, from the time its request was sent. */
export const CREDIT_TRUST = 0.75;

/**
 * The demand rate (units per ms) after `sample` units in `elapsedMs`: the sample's rate when there
 * was none, else the mean of the old rate and the sample's (an EWMA of weight 1/2).
 */
export function blendRate(previous: number, sample: number, elapsedMs: number): number {
  const rate = sample / Math.max(1, elapsedMs);
  return previous === 0 ? rate : (previous + rate) / 2;
}

/** Store time the window of width `windowMs` holding `t` ends. */
export function windowEnd(t: number, windowMs: number): number {
  return (Math.floor(t / windowMs) + 1) * windowMs;
}

/** Marks a key as synced by the caller; false if a sync is already in flight. */
export function claim(key: { syncing: boolean }): boolean {
  if (key.syncing) return false;
  key.syncing = true;
  return true;
}

/** Ends a key's sync (reply applied or round failed) and wakes the requests waiting on it. */
export function endSync(key: { syncing: boolean; notifyWaiters(): void }): void {
  key.syncing = false;
  key.notifyWaiters();
}
