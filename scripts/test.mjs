// Runs every workspace's tests with vitest, then prints the one line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";

const report = ".vitest-report.json";
rmSync(report, { force: true });
const args = [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
const res = spawnSync("npx", args, { stdio: "inherit" });

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTestSuites ?? 0);
  // A suite that failed to load has no tests in the counts: count it as a failure.
  for (const file of json.testResults ?? []) {
    if (file.status === "failed" && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed = 1;
}
const code = res.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : code);
