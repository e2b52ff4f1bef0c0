import { readFileSync, writeFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { type CliOptions, mergeOverrides, parseCli } from "./args.js";
import { type Backend, simulate } from "./engine.js";
import { ArgsError, ScenarioError } from "./errors.js";
import { runKeysCommand } from "./keys-command.js";
import { ProgressBar } from "./progress.js";
import { renderChart } from "./render-chart.js";
import { renderSummary } from "./render-summary.js";
import { renderSvg } from "./render-svg.js";
import { renderTable } from "./render-table.js";
import { buildReport } from "./report.js";
import { checkScenario, fieldName, type Scenario } from "./scenario.js";
import { readScenarioFile, type ScenarioSource, scenarioToYaml, validateScenario } from "./scenario-file.js";
import { speedLine } from "./speed.js";
import { renderSweep, sweep } from "./sweep.js";
import { usage } from "./usage.js";

/** What the CLI writes to (process streams in production, buffers in tests). */
export interface Io {
  stdout(s: string): void;
  stderr(s: string): void;
  /** True when stderr is a terminal (the progress bar's `auto`). */
  stderrIsTTY: boolean;
  writeFile(path: string, data: string): void;
  now(): number;
  /** Relative paths (scenario, --svg, --save-scenario) are taken from here. */
  baseDir: string;
}

/**
 * Where the user ran the command: `npm run` (and `npm -w`) change the working directory to the
 * package, and keep the caller's directory in INIT_CWD.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return env.INIT_CWD || cwd;
}

export const processIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  stderrIsTTY: process.stderr.isTTY === true,
  writeFile: (path, data) => writeFileSync(path, data),
  now: () => performance.now(),
  baseDir: invocationDir(),
};

export const EXIT = { ok: 0, overLimit: 1, badArgs: 2, internal: 3 } as const;

/** Runs the CLI; returns the exit code. */
/** The installed package's version (src/ and dist/ both sit one level below package.json). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return manifest.version;
}

export async function main(argv: string[], io: Io, backend: Backend): Promise<number> {
  let cli: CliOptions;
  let base: Record<string, unknown>;
  let scenario: Scenario;
  let source: ScenarioSource | undefined;
  try {
    cli = parseCli(argv);
    if (cli.command === "help") {
      io.stdout(usage());
      return EXIT.ok;
    }
    if (cli.command === "version") {
      io.stdout(`resil-sim ${packageVersion()}\n`);
      return EXIT.ok;
    }
    source = cli.scenarioFile
      ? readScenarioFile(resolvePath(io.baseDir, cli.scenarioFile), cli.scenarioFile)
      : undefined;
    base = mergeOverrides(source?.value ?? {}, cli.overrides);
    scenario = resolve(base, cli, source);
  } catch (err) {
    if (err instanceof ArgsError || err instanceof ScenarioError) {
      io.stderr(`resil-sim: ${err.message}\n(resil-sim --help lists the flags)\n`);
      return EXIT.badArgs;
    }
    throw err;
  }

  try {
    const outPath = (p: string) => resolvePath(io.baseDir, p);
    if (cli.saveScenario) io.writeFile(outPath(cli.saveScenario), scenarioToYaml(scenario));
    const showProgress =
      !cli.quiet && cli.progress !== "never" && (cli.progress === "always" || io.stderrIsTTY);
    const sink = { write: (s: string) => io.stderr(s), now: () => io.now() };

    if (cli.command === "sweep") {
      const { param, values } = cli.sweep!;
      const bar = new ProgressBar(sink, `sweep ${param}`, showProgress);
      let rows: Awaited<ReturnType<typeof sweep>>;
      try {
        rows = await sweep(
          {
            param,
            values,
            base,
            scenarioFor: (raw) => resolve(raw, cli, source),
            onProgress: (f) => bar.update(f),
          },
          backend,
        );
      } catch (err) {
        if (err instanceof ArgsError || err instanceof ScenarioError) {
          io.stderr(`resil-sim: --vary ${param}: ${err.message}\n`);
          return EXIT.badArgs;
        }
        throw err;
      }
      bar.done();
      if (cli.json)
        io.stdout(
          `${JSON.stringify({ param, rows: rows.map(({ value, summary, floor }) => ({ value, floor, summary })) }, null, 2)}\n`,
        );
      else io.stdout(renderSweep(param, rows));
      const wall = rows.reduce((a, r) => a + r.wallMs, 0);
      if (!cli.quiet)
        io.stderr(`${speedLine(scenario.duration * rows.length, wall, `${rows.length} runs`)}\n`);
      return cli.check && rows.some((r) => !r.summary.limitHeld) ? EXIT.overLimit : EXIT.ok;
    }

    if (cli.keys) return await runKeysCommand(scenario, cli, io);
    const bar = new ProgressBar(sink, scenario.name, showProgress);
    const run = await simulate(scenario, backend, { onProgress: (f) => bar.update(f) });
    bar.done();
    const report = buildReport(run);
    if (cli.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else {
      io.stdout(renderTable(report, { maxRows: cli.rows }));
      io.stdout("\n");
      io.stdout(renderSummary(report));
      io.stdout("\n");
      io.stdout(renderChart(report));
    }
    if (cli.svg) io.writeFile(outPath(cli.svg), renderSvg(report));
    if (!cli.quiet)
      io.stderr(
        `${speedLine(scenario.duration, run.wallMs, `${report.pods.length} replicas, ${run.requests} requests`)}\n`,
      );
    return cli.check && !report.summary.limitHeld ? EXIT.overLimit : EXIT.ok;
  } catch (err) {
    io.stderr(
      `resil-sim: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return EXIT.internal;
  }
}

/** Validates the merged scenario; a bad value set by a flag is reported by its flag, else by field and line. */
function resolve(
  raw: Record<string, unknown>,
  cli: CliOptions,
  source: ScenarioSource | undefined,
): Scenario {
  const checked = checkScenario(raw);
  if (checked.ok) return checked.scenario;
  const first = checked.issues[0]!;
  const fileFaults = Array.isArray(source?.value.faults) ? source.value.faults.length : 0;
  // Faults from flags come after the file's, so their index says where they came from.
  const fromFlag =
    first.path[0] === "faults"
      ? typeof first.path[1] === "number" && first.path[1] >= fileFaults && cli.flagOf.has("faults")
        ? "a fault flag (--outage/--slow/--crash/--join)"
        : undefined
      : longestFlag(cli.flagOf, first.path);
  if (fromFlag) throw new ArgsError(`${fromFlag} (${fieldName(first.path)}): ${first.message}`);
  return validateScenario(raw, source);
}

function longestFlag(flagOf: Map<string, string>, path: ReadonlyArray<string | number>): string | undefined {
  const names = path.filter((p): p is string => typeof p === "string");
  for (let n = names.length; n > 0; n--) {
    const flag = flagOf.get(names.slice(0, n).join("."));
    if (flag) return flag;
  }
  return undefined;
}
