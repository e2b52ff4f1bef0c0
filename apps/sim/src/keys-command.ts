import type { CliOptions } from "./args.js";
import { keysReport, renderKeys } from "./keys-report.js";
import { runKeys } from "./keys-run.js";
import type { Io } from "./main.js";
import type { Scenario } from "./scenario.js";
import { speedLine } from "./speed.js";

/** `resil-sim --keys N`: many subjects of one family; exit 1 with --check when a subject went over. */
export async function runKeysCommand(scenario: Scenario, cli: CliOptions, io: Io): Promise<number> {
  if (
    scenario.faults.length > 0 ||
    scenario.concurrency !== undefined ||
    scenario.settle !== undefined ||
    scenario.wait !== undefined
  ) {
    io.stderr(
      "resil-sim: --keys: faults, --max-concurrent, --settle and --wait are not simulated in a keys run\n",
    );
    return 2;
  }
  const run = await runKeys(scenario, cli.keys!);
  const report = keysReport(run);
  io.stdout(cli.json ? `${JSON.stringify(report, null, 2)}\n` : renderKeys(report));
  if (!cli.quiet)
    io.stderr(
      `${speedLine(scenario.duration, run.wallMs, `${report.keys} subjects, ${report.requests} requests`)}\n`,
    );
  return cli.check && !report.limitHeld ? 1 : 0;
}
