import { int, padLeft } from "./format.js";
import type { Report } from "./report.js";

export interface ChartOptions {
  width?: number;
  height?: number;
}

/** Columns of windows averaged together, so a long run fits the chart's width. */
export function bucketize(report: Report, width: number): Array<{ offered: number; admitted: number }> {
  const rows = report.windows;
  const n = Math.min(width, rows.length);
  const out: Array<{ offered: number; admitted: number }> = [];
  for (let c = 0; c < n; c++) {
    const from = Math.floor((c * rows.length) / n);
    const to = Math.max(from + 1, Math.floor(((c + 1) * rows.length) / n));
    let offered = 0;
    let admitted = 0;
    for (let i = from; i < to; i++) {
      offered += rows[i]!.offered;
      admitted += rows[i]!.admitted;
    }
    out.push({ offered: offered / (to - from), admitted: admitted / (to - from) });
  }
  return out;
}

/**
 * Admitted (#, ! above the limit) vs offered (o; ^ when off the top) vs limit (=) per window. The
 * scale stops at twice the limit, so heavy overload does not flatten the part that matters.
 */
export function renderChart(report: Report, opts: ChartOptions = {}): string {
  const width = opts.width ?? 72;
  const height = opts.height ?? 12;
  const cols = bucketize(report, width);
  const limit = report.windows[0]?.limit ?? 1;
  let top = limit;
  for (const c of cols) top = Math.max(top, c.offered, c.admitted);
  top = Math.min(top, 2 * limit) * 1.05;
  const rowOf = (v: number) => Math.min(height - 1, Math.floor((v / top) * height));
  const limitRow = rowOf(limit);
  const grid: string[][] = Array.from({ length: height }, (_, r) =>
    Array.from({ length: cols.length }, () => (r === limitRow ? "=" : " ")),
  );
  cols.forEach((c, x) => {
    const a = c.admitted > 0 ? rowOf(c.admitted) : -1;
    // The limit row stays "=" under a bar that reaches it, so the line is visible; "!" marks over it.
    for (let r = 0; r <= a; r++)
      grid[r]![x] = r > limitRow || (r === limitRow && c.admitted > limit) ? "!" : r === limitRow ? "=" : "#";
    if (c.offered > 0) grid[rowOf(c.offered)]![x] = c.offered > top ? "^" : "o";
  });
  const label = (r: number) => {
    if (r === height - 1) return int(top);
    if (r === limitRow) return int(limit);
    if (r === 0) return "0";
    return "";
  };
  const lines: string[] = [];
  for (let r = height - 1; r >= 0; r--) lines.push(`${padLeft(label(r), 7)} |${grid[r]!.join("")}`);
  const perCol = report.windows.length / cols.length;
  const span = (report.windows.length * report.windowMs) / 1000;
  lines.push(`${" ".repeat(7)} +${"-".repeat(cols.length)}`);
  lines.push(
    `${" ".repeat(9)}0 s ... ${span} s (${perCol === 1 ? "one window" : `${perCol.toFixed(1)} windows`} per column)`,
  );
  lines.push(`${" ".repeat(9)}# admitted  ! admitted over the limit  o offered (^ off the top)  = limit`);
  return `${lines.join("\n")}\n`;
}
