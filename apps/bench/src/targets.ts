import { median } from "./harness.js";
import { httpTargets } from "./http-targets.js";
import { settleWaitTargets } from "./settle-wait-targets.js";
import type { CaseResult, Row, Target } from "./types.js";

function row(cases: readonly CaseResult[], caseName: string, id: string): Row | undefined {
  const r = cases.find((c) => c.case === caseName)?.rows.find((x) => x.id === id);
  return r?.available && r.median !== null && Number.isFinite(r.median) ? r : undefined;
}

export function ratio(
  cases: readonly CaseResult[],
  name: string,
  goal: string,
  num: [string, string],
  den: [string, string],
  met: (r: number) => boolean,
  paired = false,
): Target {
  const a = row(cases, ...num);
  const b = row(cases, ...den);
  let value = a && b && b.median! > 0 ? a.median! / b.median! : null;
  const pairs = paired && a?.values && b?.values && a.values.length === b.values.length;
  // samples taken pass by pass (the http case): the median of each pass's ratio, so that a pass run
  // while the host was slow moves both sides of its ratio, not one median
  if (pairs && value !== null) value = median(a.values!.map((x, i) => x / b.values![i]!));
  return {
    name,
    goal,
    ratio: value,
    met: value === null ? null : met(value),
    from: `${num[0]}/${num[1]} over ${den[0]}/${den[1]}${pairs ? ", median of the passes' ratios" : ""}`,
  };
}

/** A measured value against its goal, as a target (the value stands in the ratio column). */
function absolute(
  cases: readonly CaseResult[],
  name: string,
  goal: string,
  at: [string, string],
  met: (v: number) => boolean,
  unit?: string,
): Target {
  const r = row(cases, ...at);
  const value = r ? r.median! : null;
  const target: Target = {
    name,
    goal,
    ratio: value,
    met: value === null ? null : met(value),
    from: `${at[0]}/${at[1]}`,
  };
  if (unit !== undefined) target.unit = unit;
  return target;
}

/** Issue 16 (scale): families against RateLimiterMemory at every size, idle cost, Redis work per request. */
function scaleTargets(cases: readonly CaseResult[]): Target[] {
  const out: Target[] = [];
  for (const size of ["1k", "100k", "1M"]) {
    for (const w of ["1w", "3w"]) {
      for (const callers of ["1", "16"]) {
        const tag = `${size}-${w}-${callers}`;
        out.push(
          ratio(
            cases,
            `resil tryCheck (family, local-only) vs RateLimiterMemory, ${size} keys, ${w}, ${callers} caller(s)`,
            "<= 1x",
            ["scale-keys", `resil-${tag}`],
            ["scale-keys", `rlf-${tag}`],
            (r) => r <= 1,
          ),
        );
      }
    }
  }
  out.push(
    absolute(
      cases,
      "CPU with 1M known idle keys (% of a core)",
      "< 2 %",
      ["scale-idle", "idle-cpu-known"],
      (v) => v < 2,
      "%",
    ),
  );
  out.push(
    absolute(
      cases,
      "heap after 1M family subjects went idle, over the heap before",
      "<= 1.1x",
      ["scale-idle", "heap-after-idle"],
      (v) => v <= 1.1,
    ),
  );
  for (const perKey of [1, 10]) {
    for (const what of ["cmds", "cpu"]) {
      out.push(
        ratio(
          cases,
          `Redis ${what === "cmds" ? "commands" : "CPU"} per request, resil vs RateLimiterRedis, ${perKey}/s per key, 10 000 keys`,
          "<= 1x",
          ["scale-redis", `resil-${what}-${perKey}`],
          ["scale-redis", `rlf-${what}-${perKey}`],
          (r) => r <= 1,
        ),
      );
    }
  }
  return out;
}

/** The targets as ratios from one run; reported, never asserted. */
export function computeTargets(cases: readonly CaseResult[]): Target[] {
  return [
    ratio(
      cases,
      "resil tryCheck on a credited key vs the floor (1 caller, hot key)",
      "<= 3x",
      ["hot-1", "resil-trycheck"],
      ["hot-1", "floor"],
      (r) => r <= 3,
    ),
    ratio(
      cases,
      "resil tryAdmit (no headers, no allocation) vs the floor (1 caller, hot key)",
      "<= 2x",
      ["hot-1", "resil-tryadmit"],
      ["hot-1", "floor"],
      (r) => r <= 2,
    ),
    ratio(
      cases,
      "tryCheck now vs the --baseline checkout (1 caller, hot key; run with --baseline)",
      "<= 1.1x (no regression beyond noise)",
      ["hot-1", "resil-trycheck"],
      ["hot-1", "baseline-trycheck"],
      (r) => r <= 1.1,
    ),
    ratio(
      cases,
      "tryAdmit now vs the --baseline checkout (1 caller, hot key; run with --baseline)",
      "<= 1.1x (no regression beyond noise)",
      ["hot-1", "resil-tryadmit"],
      ["hot-1", "baseline-tryadmit"],
      (r) => r <= 1.1,
    ),
    ratio(
      cases,
      "RateLimiterMemory (3 windows) vs resil tryCheck, 10 000 keys",
      ">= 5x",
      ["keys-10k", "rlf-memory"],
      ["keys-10k", "resil-trycheck"],
      (r) => r >= 5,
    ),
    ratio(
      cases,
      "per-request throughput: resil tryCheck vs RateLimiterRedis, 1 caller",
      ">= 500x",
      ["hot-1", "rlf-redis"],
      ["hot-1", "resil-trycheck"],
      (r) => r >= 500,
    ),
    ratio(
      cases,
      "resil Redis commands/s per replica, 100x vs 1x request rate",
      "flat (<= 1.5x)",
      ["redis-commands", "resil-100x"],
      ["redis-commands", "resil-1x"],
      (r) => r <= 1.5,
    ),
    ratio(
      cases,
      "resil Redis commands/s per replica, one key over its limit, 100x vs 10x",
      "flat (<= 1.5x)",
      ["redis-commands", "resil-over-100x"],
      ["redis-commands", "resil-over-10x"],
      (r) => r <= 1.5,
    ),
    ratio(
      cases,
      "limiter tryRemoveTokens vs resil RateLimiter.tryAcquire (full bucket)",
      ">= 2x",
      ["meters", "limiter-full"],
      ["meters", "resil-full"],
      (r) => r >= 2,
    ),
    ...httpTargets(cases, ratio),
    ...scaleTargets(cases),
    ...settleWaitTargets(cases, ratio),
  ];
}
