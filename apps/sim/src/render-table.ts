import { columns, int, num } from "./format.js";
import type { Report, WindowRow } from "./report.js";

export interface TableOptions {
  /** Most rows printed; longer runs show the first and last windows and every window over the limit. */
  maxRows?: number;
  /** Most per-replica columns; the rest are summed into "others". */
  maxReplicaColumns?: number;
}

/** The per-window table: offered, admitted, limit, over-limit, denied and admitted per replica. */
export function renderTable(report: Report, opts: TableOptions = {}): string {
  const maxRows = opts.maxRows ?? 60;
  const maxCols = opts.maxReplicaColumns ?? 8;
  const pods = report.pods;
  const shown = pods.length > maxCols ? pods.slice(0, maxCols - 1) : pods;
  const hasOthers = shown.length < pods.length;
  const concurrency = report.scenario.concurrency !== undefined;
  const header = ["window", "t(s)", "offered", "admitted", "limit", "over", "denied"];
  if (concurrency) header.push("slots");
  header.push(...shown);
  if (hasOthers) header.push("others");

  const line = (r: WindowRow): string[] => {
    const cells = [
      int(r.index),
      num(r.startS),
      int(r.offered),
      int(r.admitted),
      int(r.limit),
      r.over > 0 ? `+${int(r.over)}` : "0",
      int(r.denied),
    ];
    if (concurrency) cells.push(int(r.maxActive ?? 0));
    cells.push(...shown.map((_, i) => int(r.perReplica[i] ?? 0)));
    if (hasOthers) cells.push(int(r.perReplica.slice(shown.length).reduce((a, b) => a + b, 0)));
    return cells;
  };

  const picked = pickRows(report.windows, maxRows);
  const body: string[][] = [header];
  const gaps = new Map<number, number>();
  let prev = -1;
  for (const r of picked) {
    if (r.index > prev + 1) gaps.set(body.length, r.index - prev - 1);
    body.push(line(r));
    prev = r.index;
  }
  const trailing = report.windows.length - 1 - prev;
  const laid = columns(body);
  const out: string[] = [];
  laid.forEach((l, i) => {
    const gap = gaps.get(i);
    if (gap !== undefined) out.push(`  ... ${gap} window(s) not shown`);
    out.push(l);
  });
  if (trailing > 0) out.push(`  ... ${trailing} window(s) not shown`);
  return `${out.join("\n")}\n`;
}

/** All rows when they fit; else the first and last ones plus the windows over the limit, in order. */
function pickRows(rows: WindowRow[], max: number): WindowRow[] {
  if (rows.length <= max) return rows;
  const head = Math.ceil(max / 3);
  const tail = Math.ceil(max / 6);
  const keep = new Set<number>();
  for (let i = 0; i < head; i++) keep.add(i);
  for (let i = rows.length - tail; i < rows.length; i++) keep.add(i);
  const over = rows.filter((r) => r.over > 0).sort((a, b) => b.over - a.over);
  for (const r of over) {
    if (keep.size >= max) break;
    keep.add(r.index);
  }
  return rows.filter((r) => keep.has(r.index));
}
