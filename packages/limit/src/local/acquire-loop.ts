import type { Clock } from "../clock/clock.js";
import { sleep } from "../clock/sleep.js";
import type { LocalLimiterMetrics } from "./metrics.js";
import { PERMIT, type Permit } from "./permit.js";

/** Who is waiting, for the metrics hooks. */
export interface Waiter {
  clock: Clock;
  metrics: LocalLimiterMetrics | undefined;
  name: string;
}

/**
 * The wait every `acquire` shares: `attempt()` takes the units and returns undefined, or returns how
 * long to sleep before trying again (NEVER sets no timer). Nothing is held while waiting, so waiters
 * that wake together recompute and one of them wins.
 */
export async function acquireLoop(
  w: Waiter,
  units: number,
  signal: AbortSignal | undefined,
  attempt: () => number | undefined,
): Promise<Permit> {
  signal?.throwIfAborted();
  let startedAt = -1;
  for (;;) {
    const waitMs = attempt();
    if (waitMs === undefined) {
      if (startedAt >= 0) w.metrics?.waitTime?.(w.name, w.clock.monoMs() - startedAt);
      w.metrics?.acquired?.(w.name, units);
      return PERMIT;
    }
    if (startedAt < 0) {
      startedAt = w.clock.monoMs();
      w.metrics?.throttled?.(w.name, "waited");
    }
    await sleep(w.clock, waitMs, signal);
  }
}
