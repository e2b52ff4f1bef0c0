import { SWEEP_PARAMS, type SweepParam, withField } from "./args.js";
import { type Backend, simulate } from "./engine.js";
import { ArgsError } from "./errors.js";
import { columns, int, num, pct } from "./format.js";
import { buildReport, type Summary } from "./report.js";
import type { Scenario } from "./scenario.js";
import { utilisationFloor } from "./utilisation-floor.js";

/** One sweep row: the value tried and the run's summary. */
export interface SweepRow {
  value: number;
  summary: Summary;
  /** The utilisation this row must reach to hold (`utilisationFloor` of its scenario). */
  floor: number;
  wallMs: number;
}

export interface SweepOptions {
  param: SweepParam;
  values: number[];
  /** Builds the scenario for one value (validation errors name the field). */
  scenarioFor: (raw: Record<string, unknown>) => Scenario;
  base: Record<string, unknown>;
  onRun?: (index: number, value: number) => void;
  onProgress?: (fraction: number) => void;
}

/** Runs the same scenario once per value of one parameter. */
export async function sweep(opts: SweepOptions, backend: Backend): Promise<SweepRow[]> {
  const path = SWEEP_PARAMS[opts.param];
  if (!path)
    throw new ArgsError(
      `--vary: expected one of ${Object.keys(SWEEP_PARAMS).join(", ")}, got "${opts.param}"`,
    );
  // Validate every value before the first run, so a bad one fails fast.
  const scenarios = opts.values.map((v) => opts.scenarioFor(withField(opts.base, path, v)));
  const rows: SweepRow[] = [];
  for (let i = 0; i < scenarios.length; i++) {
    opts.onRun?.(i, opts.values[i]!);
    const run = await simulate(scenarios[i]!, backend, {
      onProgress: (f) => opts.onProgress?.((i + f) / scenarios.length),
    });
    rows.push({
      value: opts.values[i]!,
      summary: buildReport(run).summary,
      floor: utilisationFloor(scenarios[i]!),
      wallMs: run.wallMs,
    });
  }
  return rows;
}

/**
 * "holds" (no window over and utilisation at or above the row's floor, see utilisation-floor.ts),
 * "under-used" (held, less utilisation) or "OVER".
 */
export function verdict(s: Summary, floor: number): "holds" | "under-used" | "OVER" {
  if (!s.limitHeld) return "OVER";
  return s.utilisation >= floor ? "holds" : "under-used";
}

/** The sweep table: one summary row per value. */
export function renderSweep(param: SweepParam, rows: SweepRow[]): string {
  const header = [
    param,
    "utilisation",
    "floor",
    "max over",
    "windows over",
    "starved",
    "denies",
    "store calls/s",
    "overruns",
    "fail-static",
    "paid back",
    "verdict",
  ];
  const body = rows.map((r) => {
    const s = r.summary;
    return [
      num(r.value, 3),
      pct(s.utilisation),
      pct(r.floor),
      s.maxOverAdmission.units > 0
        ? `+${int(s.maxOverAdmission.units)} (${pct(s.maxOverAdmission.fraction)})`
        : "0",
      `${s.windowsOver}/${s.windowsChecked}`,
      int(s.starvedReplicas),
      int(s.deniedRequests),
      num(s.storeCallsPerSecond),
      int(s.overruns),
      int(s.failStaticAdmits),
      int(s.paidBack),
      verdict(s, r.floor),
    ];
  });
  return `${columns([header, ...body]).join("\n")}\n`;
}
