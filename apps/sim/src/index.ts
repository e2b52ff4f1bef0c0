export { type CliOptions, parseCli, SWEEP_PARAMS, type SweepParam } from "./args.js";
export { type Backend, type CrashReport, type RawRun, type RunOptions, simulate } from "./engine.js";
export { ArgsError, ScenarioError } from "./errors.js";
export { FaultStore, StoreDownError } from "./fault-store.js";
export { limiterBackend, rateConfig } from "./limiter-backend.js";
export { EXIT, type Io, main } from "./main.js";
export { renderChart } from "./render-chart.js";
export { renderSummary } from "./render-summary.js";
export { renderSvg } from "./render-svg.js";
export { renderTable } from "./render-table.js";
export type {
  Outcome,
  QuickVerdict,
  ReplicaContext,
  ReplicaFactory,
  SimReplica,
  SlotResult,
} from "./replica.js";
export { buildReport, type Report, type Summary, type WindowRow } from "./report.js";
export { parseScenario, type Scenario, type ScenarioInput, scenarioSchema } from "./scenario.js";
export { loadScenarioFile, parseScenarioText, scenarioToYaml } from "./scenario-file.js";
export { renderSweep, type SweepRow, sweep } from "./sweep.js";
