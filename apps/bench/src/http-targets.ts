import type { ratio as Ratio } from "./targets.js";
import type { CaseResult, Target } from "./types.js";

/** Issue 20's HTTP targets (req/s ratios of the `http` case), the hardest row of each kind. */
export function httpTargets(cases: readonly CaseResult[], ratio: typeof Ratio): Target[] {
  const vs = (name: string, ours: string, peer: string, goal = ">= 1x", min = 1) =>
    ratio(cases, name, goal, ["http", ours], ["http", peer], (r) => r >= min, true);
  return [
    vs(
      "HTTP: ours node:http (no store) vs rate-limiter-flexible memory, 100 000 keys, 90 % denied",
      "ours-node-local-100000-deny90",
      "rlf-memory-100000-deny90",
    ),
    vs(
      "HTTP: ours node:http on Redis vs rate-limiter-flexible Redis, 100 000 keys, all admitted",
      "ours-node-redis-100000-admit",
      "rlf-redis-100000-admit",
    ),
    vs(
      "HTTP: ours Express on Redis vs express-rate-limit + rate-limit-redis, 100 000 keys, all admitted",
      "ours-express-redis-100000-admit",
      "erl-redis-100000-admit",
    ),
    vs(
      "HTTP: ours Express middleware (no store) vs bare express, 100 keys, all admitted",
      "ours-express-local-100-admit",
      "bare-express-100-admit",
      ">= 0.95x",
      0.95,
    ),
  ];
}
