import { monitorEventLoopDelay } from "node:perf_hooks";
import type { RedisCommand, RedisExec, RedisReply } from "@resil/limit";
import { Limiter, type LimiterOptions, type RateLimitConfig, RedisStore } from "@resil/limit";
import type { ExecHandle, LimiterAdapter } from "./exec-handle.js";
import { driveLoad, type LoadResult, msUntilIntoSecond } from "./load-driver.js";

/** A RedisExec that can be slowed down or cut off (every pipeline rejects) while the test runs. */
export class FaultExec implements RedisExec {
  delayMs = 0;
  down = false;

  constructor(private readonly inner: RedisExec) {}

  async pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.down) throw new Error("unreachable (fault injected)");
    return this.inner.pipeline(commands);
  }
}

/** N replicas of one service, each on its own connection behind a FaultExec. */
export interface Rig {
  limiters: Limiter[];
  execs: FaultExec[];
  close(): Promise<void>;
}

export const RIG_LIMIT = 50;
/** 50 per second, fixed window: the limit of every fault scenario. */
export const RIG_POLICY: RateLimitConfig = {
  algorithm: "fixed_window",
  requestsPerSecond: RIG_LIMIT,
  localAllowance: 0.8,
};

/**
 * `n` replicas on `url`, the policy set before `start()` (so the first window has credit), then
 * `settleMs` so every replica has seen the others' heartbeats. `startNow: false` leaves them unstarted.
 */
export async function startRig(
  adapter: LimiterAdapter,
  url: string,
  n: number,
  options: LimiterOptions,
  setup: (l: Limiter, exec: FaultExec) => void = (l) => l.setPolicy("api", RIG_POLICY),
  settleMs = 1100,
): Promise<Rig> {
  const handles: ExecHandle[] = await Promise.all(Array.from({ length: n }, () => adapter.connect(url)));
  const execs = handles.map((h) => new FaultExec(h.exec));
  const limiters = execs.map((e, i) => new Limiter({ podId: `pod-${i}`, ...options }, new RedisStore(e)));
  for (let i = 0; i < n; i++) setup(limiters[i]!, execs[i]!);
  await Promise.all(limiters.map((l) => l.start()));
  await new Promise((r) => setTimeout(r, settleMs));
  return {
    limiters,
    execs,
    async close() {
      await Promise.all(limiters.map((l) => l.shutdown()));
      await Promise.all(handles.map((h) => h.close()));
    },
  };
}

/** What one faulted load run measured. */
export interface FaultRun {
  load: LoadResult;
  /** The event loop's worst delay during the run, ms (perf_hooks.monitorEventLoopDelay). */
  loopDelayMaxMs: number;
}

/**
 * 5x the limit (16 callers, 64 ms apart: about 250 checks a second) for `durationMs`, starting 100 ms
 * into a second; `fault(atMs)` callbacks run that long after the start.
 */
export async function loadWithFaults(
  limiters: readonly Limiter[],
  durationMs: number,
  faults: ReadonlyArray<[atMs: number, run: () => unknown]>,
  subject = "api",
): Promise<FaultRun> {
  const startAt = Date.now() + msUntilIntoSecond(100, 300);
  const timers = faults.map(([at, run]) => setTimeout(run, startAt - Date.now() + at));
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    const load = await driveLoad(limiters, { subject, tasks: 16, durationMs, pauseMs: 64, startAt });
    return { load, loopDelayMaxMs: delay.max / 1e6 };
  } finally {
    delay.disable();
    for (const t of timers) clearTimeout(t);
  }
}

/** Admitted per second, for the log. */
export function admittedPerSecond(run: FaultRun): number[] {
  return run.load.seconds.map(([, admitted]) => admitted);
}
