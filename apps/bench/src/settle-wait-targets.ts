import type { ratio as Ratio } from "./targets.js";
import type { CaseResult, Target } from "./types.js";

/** Issue 17's bench targets (the `settle-wait` case), as same-run ratios. */
export function settleWaitTargets(cases: readonly CaseResult[], ratio: typeof Ratio): Target[] {
  const at = (id: string): [string, string] => ["settle-wait", id];
  return [
    ratio(
      cases,
      "RateLimiterMemory penalty vs resil settle(+1), ns per call",
      ">= 1x",
      at("rlf-memory-penalty"),
      at("resil-settle-charge"),
      (r) => r >= 1,
    ),
    ratio(
      cases,
      "RateLimiterMemory reward vs resil settle(-1), ns per call",
      ">= 1x",
      at("rlf-memory-reward"),
      at("resil-settle-refund"),
      (r) => r >= 1,
    ),
    ratio(
      cases,
      "Pacer vs RateLimiterQueue (Redis): waiters admitted per second",
      ">= 0.95x",
      at("resil-pacer-throughput"),
      at("rlf-queue-throughput"),
      (r) => r >= 0.95,
    ),
    ratio(
      cases,
      "Pacer vs bottleneck (Redis clustering, heartbeat 100 ms): waiters admitted per second",
      ">= 0.95x",
      at("resil-pacer-throughput"),
      at("bottleneck-redis-hb-throughput"),
      (r) => r >= 0.95,
    ),
    ratio(
      cases,
      "Pacer vs bottleneck (Redis clustering, default 5 s heartbeat): waiters admitted per second",
      ">= 0.95x",
      at("resil-pacer-throughput"),
      at("bottleneck-redis-throughput"),
      (r) => r >= 0.95,
    ),
    ratio(
      cases,
      "Redis commands per admitted waiter, Pacer vs RateLimiterQueue",
      "<= 1x",
      at("resil-pacer-cmds"),
      at("rlf-queue-cmds"),
      (r) => r <= 1,
    ),
    ratio(
      cases,
      "Redis commands/s per replica, every request settled vs its cost known up front",
      "flat (<= 1.5x)",
      at("traffic-settle"),
      at("traffic-no-settle"),
      (r) => r <= 1.5,
    ),
  ];
}
