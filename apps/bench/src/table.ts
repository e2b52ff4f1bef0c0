import { machineLine } from "./machine.js";
import type { BenchFile, CaseResult, Row, Target } from "./types.js";

function num(v: number): string {
  if (Math.abs(v) < 10) return v.toFixed(1);
  return Math.round(v).toLocaleString("en-US");
}

function result(r: Row): string {
  if (!r.available || r.median === null) return "not available";
  if (r.unit === "ns/op") {
    const mops = 1e3 / r.median;
    const rate = mops >= 0.1 ? `${mops.toFixed(mops >= 10 ? 0 : 1)} M/s` : `${num(mops * 1e3)} k/s`;
    return `${num(r.median)} ns/op (${rate})`;
  }
  return `${num(r.median)} ${r.unit}`;
}

// two decimals below 10x: a target of 0.95x or 3x is read against them (0.96 showed as "1.0x")
function ratioText(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "";
  return `${value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(value >= 10 ? 0 : 2)}x`;
}

// The best sample: the lowest cost, or the highest rate for per-second units.
function bestOf(r: Row): number {
  return r.unit === "cmds/s" || r.unit === "req/s" ? r.max! : r.min!;
}

// Reference rows: a multiple of resil means nothing for them.
const BASELINES = new Set(["floor", "floor-clock", "bare", "resil-store"]);

// Ratios make sense where lower is better and the rows share a unit.
function comparable(r: Row): boolean {
  return r.unit === "ns/op" || r.unit === "ns overhead" || r.unit === "bytes/key";
}

function reference(c: CaseResult, pick: (r: Row) => boolean): Row | undefined {
  return c.rows.find((r) => pick(r) && r.available && r.median !== null && r.median > 0);
}

/** A markdown table for one case: result, spread, multiple of the floor, multiple of resil's best row. */
export function caseTable(c: CaseResult): string {
  const lines = [`**${c.title}**: ${c.description}`, ""];
  if (c.error) lines.push(`case failed: ${c.error}`, "");
  if (c.rows.length === 0) return lines.join("\n");
  const floor = reference(c, (r) => r.id === "floor");
  const resil = reference(c, (r) => r.id.startsWith("resil"));
  lines.push(
    "| implementation | median | best | spread | x floor | x resil | note |",
    "| --- | --: | --: | --: | --: | --: | --- |",
  );
  for (const r of c.rows) {
    const ok = r.available && r.median !== null && comparable(r);
    const xFloor = ok && floor && r !== floor ? ratioText(r.median! / floor.median!) : "";
    const xResil =
      ok && resil && r !== resil && !BASELINES.has(r.id) ? ratioText(r.median! / resil.median!) : "";
    const spread = r.spreadPct === null ? "" : `${Math.round(r.spreadPct)}%`;
    const notes = [r.wide ? "wide spread" : "", r.note ?? ""].filter(Boolean).join("; ");
    const best = r.available && r.min !== null && r.samples > 1 ? num(bestOf(r)) : "";
    lines.push(`| ${r.label} | ${result(r)} | ${best} | ${spread} | ${xFloor} | ${xResil} | ${notes} |`);
  }
  return lines.join("\n");
}

// an absolute figure in its unit ("1.3 %"), a ratio as "1.3x"
function measuredText(t: Target): string {
  if (t.ratio === null) return "n/a";
  return t.unit !== undefined ? `${t.ratio.toFixed(1)} ${t.unit}` : ratioText(t.ratio);
}

export function targetsTable(targets: readonly Target[]): string {
  const lines = ["| target | goal | measured | met |", "| --- | --- | --: | --- |"];
  for (const t of targets) {
    const met = t.met === null ? "not measured" : t.met ? "yes" : "no";
    lines.push(`| ${t.name} | ${t.goal} | ${measuredText(t)} | ${met} |`);
  }
  return lines.join("\n");
}

/** One line: the machine, the mode, the date, the run's length and the host's load. */
export function machineSummary(file: BenchFile): string {
  return `Machine: ${machineLine(file.machine)}. Mode: ${file.mode}, ${file.generatedAt.slice(0, 10)}, ${Math.round(
    file.totalMs / 1000,
  )} s in all; 1-minute load average ${file.loadAvg[0]} at the start, ${file.loadAvg[1]} at the end.`;
}

/** The whole report: machine, targets, then each case. Used by the console and by the results page. */
export function report(file: BenchFile): string {
  const parts = [machineSummary(file), "", targetsTable(file.targets)];
  for (const c of file.cases) parts.push("", caseTable(c));
  return parts.join("\n");
}
