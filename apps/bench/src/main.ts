import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BASELINE_ENV } from "./baseline.js";
import { staleBuilds } from "./built.js";
import { runChild } from "./child.js";
import { describeMachine } from "./machine.js";
import { RESULTS_PAGE, updateReadme } from "./readme-table.js";
import { CASE_NAMES, caseLimitMs } from "./registry.js";
import { report } from "./table.js";
import { computeTargets } from "./targets.js";
import type { BenchFile, CaseResult } from "./types.js";

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = resolve(here, "..");
const repoRoot = resolve(benchDir, "../..");
/** The committed results of the last full run; the README table is generated from it. */
export const COMMITTED_JSON = join(benchDir, "results", "bench.json");

const USAGE = `usage: npm run bench -- [case ...] [--smoke] [--out file.json]
       npm run bench -- --readme [--from file.json]   rewrite the README table from the committed JSON
       npm run bench -- hot-1 hot-16 --baseline DIR   also measure DIR's @resil/limit (e.g. a worktree)
       npm run bench -- --list
cases: ${CASE_NAMES.join(", ")}
A full run (no case named, no --smoke) writes ${relative(repoRoot, COMMITTED_JSON)};
other runs write apps/bench/bench-results/ (gitignored) unless --out is given.`;

interface Args {
  cases: string[];
  smoke: boolean;
  readme: boolean;
  list: boolean;
  out?: string;
  from?: string;
  baseline?: string;
  child?: string;
  resultFile?: string;
}

function parse(argv: readonly string[]): Args {
  const args: Args = { cases: [], smoke: false, readme: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === "--smoke") args.smoke = true;
    else if (a === "--readme") args.readme = true;
    else if (a === "--list") args.list = true;
    else if (a === "--out") args.out = value();
    else if (a === "--from") args.from = value();
    else if (a === "--baseline") args.baseline = value();
    else if (a === "--child") args.child = value();
    else if (a === "--result-file") args.resultFile = value();
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith("--")) throw new Error(`unknown option ${a}\n${USAGE}`);
    else if (!CASE_NAMES.includes(a)) throw new Error(`unknown case ${JSON.stringify(a)}\n${USAGE}`);
    else args.cases.push(a);
  }
  return args;
}

/** Runs one case in a fresh node process (same flags as ours), so no case warms or pollutes another's JIT. */
function runInChild(name: string, smoke: boolean, timeoutMs: number): Promise<CaseResult> {
  const dir = mkdtempSync(join(tmpdir(), "resil-bench-"));
  const resultFile = join(dir, "result.json");
  const argv = [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--child",
    name,
    "--result-file",
    resultFile,
  ];
  if (smoke) argv.push("--smoke");
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, argv, { stdio: ["ignore", "inherit", "pipe"], cwd: benchDir });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      process.stderr.write(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const durationMs = Math.round(performance.now() - started);
      let result: CaseResult;
      try {
        result = JSON.parse(readFileSync(resultFile, "utf8")) as CaseResult;
      } catch {
        const why = signal ? `killed by ${signal}` : `exit code ${String(code)}`;
        const last = stderr.trim().split("\n").slice(-3).join(" / ");
        result = { case: name, title: name, description: "", rows: [], durationMs, error: `${why}: ${last}` };
      }
      rmSync(dir, { recursive: true, force: true });
      done(result);
    });
  });
}

const round2 = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args.child !== undefined) {
    if (!args.resultFile) throw new Error("--child needs --result-file");
    await runChild(args.child, args.smoke, args.resultFile);
    return;
  }
  if (args.list) {
    console.log(CASE_NAMES.join("\n"));
    return;
  }
  if (args.readme) {
    const from = resolve(args.from ?? COMMITTED_JSON);
    const readme = join(repoRoot, "README.md");
    updateReadme(readme, join(repoRoot, RESULTS_PAGE), from, relative(repoRoot, from));
    console.log(`README.md and ${RESULTS_PAGE}: rewritten from ${relative(repoRoot, from)}`);
    return;
  }
  const stale = staleBuilds(repoRoot);
  if (stale.length > 0) {
    throw new Error(
      `${stale.join(", ")}: dist/ is missing or older than src/. The bench measures the built packages, ` +
        "as users run them: run `npm run build` first (or start it with --conditions=source to run src/).",
    );
  }
  // Case processes inherit it: the hot-path cases then also measure that checkout's Limiter.
  if (args.baseline !== undefined) process.env[BASELINE_ENV] = resolve(args.baseline);
  const names = args.cases.length > 0 ? args.cases : [...CASE_NAMES];
  const started = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;
  const cases: CaseResult[] = [];
  for (const name of names) {
    console.error(`bench: ${name}${args.smoke ? " (smoke)" : ""} ...`);
    cases.push(await runInChild(name, args.smoke, caseLimitMs(name, args.smoke)));
  }
  const file: BenchFile = {
    version: 1,
    mode: args.smoke ? "smoke" : "full",
    generatedAt: new Date().toISOString(),
    machine: describeMachine(),
    totalMs: Math.round(performance.now() - started),
    loadAvg: [round2(loadAtStart), round2(loadavg()[0] ?? 0)],
    cases,
    targets: computeTargets(cases),
  };
  const full = !args.smoke && args.cases.length === 0;
  const stamp = file.generatedAt.replace(/[:.]/g, "-");
  const out = resolve(
    args.out ?? (full ? COMMITTED_JSON : join(benchDir, "bench-results", `${file.mode}-${stamp}.json`)),
  );
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
  console.log(report(file));
  console.log(`\nresults: ${relative(process.cwd(), out)}`);
  if (full) console.log("README table: npm run bench -- --readme");
  if (cases.some((c) => c.error)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
