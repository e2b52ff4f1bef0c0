import { niceScale, tickLabel } from "./nice-scale.js";
import { bucketize } from "./render-chart.js";
import type { Report } from "./report.js";

const W = 800;
const H = 420;
/** Plot area margins: the title and the legend sit above the plot, never over the data. */
const M = { l: 64, r: 24, t: 84, b: 52 };
const COLORS = { offered: "#888", admitted: "#1f77b4", limit: "#d62728", outage: "#d62728", slow: "#ff7f0e" };
const MARKS = { crash: "#6a3d9a", join: "#2ca02c" };

/** A fault drawn on the plot: a shaded span (outage, slow store) or a moment (crash, join). */
interface FaultMark {
  kind: "outage" | "slow" | "crash" | "join";
  fromS: number;
  toS?: number;
  label: string;
}

/** An SVG plot of offered, admitted and limit per window, with the scenario's faults, for a design document. */
export function renderSvg(report: Report): string {
  const cols = bucketize(report, 400);
  const limit = report.windows[0]?.limit ?? 1;
  let max = limit;
  for (const c of cols) max = Math.max(max, c.offered, c.admitted);
  const yScale = niceScale(max * 1.02);
  const spanS = (report.windows.length * report.windowMs) / 1000 || report.scenario.duration;
  const xScale = niceScale(spanS, 8);
  const plotW = W - M.l - M.r;
  const plotH = H - M.t - M.b;
  const x = (s: number) => M.l + (plotW * Math.min(s, spanS)) / spanS;
  const y = (v: number) => H - M.b - (plotH * v) / yScale.top;
  const colX = (i: number) => x(((i + 0.5) * spanS) / cols.length);
  const points = (vals: number[]) => vals.map((v, i) => `${f(colX(i))},${f(y(v))}`).join(" ");
  const faults = faultMarks(report).filter((m) => m.fromS < spanS);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(title(report))}</text>`,
  ];
  // Fault spans first, so the lines are drawn over them; labels in two staggered rows.
  faults.forEach((m, i) => {
    const labelY = M.t + 14 + (i % 2) * 14;
    if (m.toS !== undefined) {
      const color = m.kind === "outage" ? COLORS.outage : COLORS.slow;
      out.push(
        `<rect class="fault fault-${m.kind}" x="${f(x(m.fromS))}" y="${M.t}" width="${f(x(m.toS) - x(m.fromS))}" height="${plotH}" fill="${color}" fill-opacity="0.13"/>`,
      );
    } else {
      const color = MARKS[m.kind as "crash" | "join"];
      out.push(
        `<line class="fault fault-${m.kind}" x1="${f(x(m.fromS))}" x2="${f(x(m.fromS))}" y1="${M.t}" y2="${H - M.b}" stroke="${color}" stroke-width="1.5" stroke-dasharray="2 3"/>`,
      );
    }
    // Near the right edge the label goes left of its mark; a white halo keeps it readable over lines.
    const left = x(m.fromS) + 4 + m.label.length * 7 > W - M.r;
    const at = left ? `x="${f(x(m.fromS) - 4)}" text-anchor="end"` : `x="${f(x(m.fromS) + 4)}"`;
    out.push(
      `<text class="fault-label" ${at} y="${labelY}" fill="#333" stroke="white" stroke-width="3" paint-order="stroke">${escapeXml(m.label)}</text>`,
    );
  });
  for (const v of yScale.ticks) {
    out.push(
      `<line x1="${M.l}" x2="${W - M.r}" y1="${f(y(v))}" y2="${f(y(v))}" stroke="#e5e5e5"/>`,
      `<text class="y-tick" x="${M.l - 6}" y="${f(y(v) + 4)}" text-anchor="end">${tickLabel(v, yScale.step)}</text>`,
    );
  }
  for (const s of xScale.ticks.filter((t) => t <= spanS + 1e-9)) {
    out.push(
      `<line x1="${f(x(s))}" x2="${f(x(s))}" y1="${H - M.b}" y2="${H - M.b + 4}" stroke="#333"/>`,
      `<text class="x-tick" x="${f(x(s))}" y="${H - M.b + 17}" text-anchor="middle">${tickLabel(s, xScale.step)}</text>`,
    );
  }
  out.push(
    `<line x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${H - M.b}" stroke="#333"/>`,
    `<line x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}" stroke="#333"/>`,
    `<text x="${M.l + plotW / 2}" y="${H - 12}" text-anchor="middle">simulated seconds (one point per ${report.windowMs / 1000} s window)</text>`,
    `<text transform="translate(16,${M.t + plotH / 2}) rotate(-90)" text-anchor="middle">units per window</text>`,
    `<polyline fill="none" stroke="${COLORS.offered}" stroke-width="1.5" points="${points(cols.map((c) => c.offered))}"/>`,
    `<polyline fill="none" stroke="${COLORS.admitted}" stroke-width="2" points="${points(cols.map((c) => c.admitted))}"/>`,
    `<line x1="${M.l}" x2="${W - M.r}" y1="${f(y(limit))}" y2="${f(y(limit))}" stroke="${COLORS.limit}" stroke-dasharray="6 4"/>`,
    legend(limit, faults),
    "</svg>",
  );
  return `${out.join("\n")}\n`;
}

function title(report: Report): string {
  const s = report.scenario;
  const limits = s.limits.map((l) => `${l.limit}/${l.window}`).join(" + ");
  return `${s.name}: ${s.replicas} replicas, ${s.algorithm} ${limits}, load ${s.load}x`;
}

/** One row of swatches between the title and the plot area. */
function legend(limit: number, faults: FaultMark[]): string {
  const items: Array<[string, string]> = [
    ["offered", `<line x1="0" x2="20" y1="-4" y2="-4" stroke="${COLORS.offered}" stroke-width="1.5"/>`],
    ["admitted", `<line x1="0" x2="20" y1="-4" y2="-4" stroke="${COLORS.admitted}" stroke-width="2"/>`],
    [
      `limit (${limit} per window)`,
      `<line x1="0" x2="20" y1="-4" y2="-4" stroke="${COLORS.limit}" stroke-dasharray="6 4"/>`,
    ],
  ];
  const kinds = new Set(faults.map((m) => m.kind));
  if (kinds.has("outage"))
    items.push([
      "store down",
      `<rect y="-10" width="20" height="12" fill="${COLORS.outage}" fill-opacity="0.13"/>`,
    ]);
  if (kinds.has("slow"))
    items.push([
      "store slow",
      `<rect y="-10" width="20" height="12" fill="${COLORS.slow}" fill-opacity="0.13"/>`,
    ]);
  for (const k of ["crash", "join"] as const)
    if (kinds.has(k))
      items.push([
        k === "crash" ? "replica crash" : "replica join",
        `<line x1="10" x2="10" y1="-11" y2="3" stroke="${MARKS[k]}" stroke-width="1.5" stroke-dasharray="2 3"/>`,
      ]);
  // Rows of swatches, wrapped at the plot's width (about 7 px a character at 12 px).
  let at = 0;
  let row = 0;
  const parts = items.map(([label, swatch]) => {
    const width = 26 + label.length * 7 + 18;
    if (at > 0 && at + width > W - M.l - M.r) {
      at = 0;
      row++;
    }
    const g = `<g transform="translate(${at},${row * 18})">${swatch}<text x="26" y="0">${escapeXml(label)}</text></g>`;
    at += width;
    return g;
  });
  return `<g class="legend" transform="translate(${M.l},${row > 0 ? 44 : 52})">${parts.join("")}</g>`;
}

/** The scenario's faults in simulated seconds, in time order. */
function faultMarks(report: Report): FaultMark[] {
  const marks = report.scenario.faults.map((fault): FaultMark => {
    if (fault.type === "outage")
      return { kind: "outage", fromS: fault.from, toS: fault.to, label: "store down" };
    if (fault.type === "slow")
      return { kind: "slow", fromS: fault.from, toS: fault.to, label: `store +${fault.latencyMs} ms` };
    if (fault.type === "crash")
      return { kind: "crash", fromS: fault.at, label: `pod-${fault.replica} crashes` };
    return { kind: "join", fromS: fault.at, label: "joins" };
  });
  // Joined replicas are named after the initial ones, in the order they join.
  let next = report.scenario.replicas;
  const sorted = marks.sort((a, b) => a.fromS - b.fromS);
  for (const m of sorted) if (m.kind === "join") m.label = `pod-${next++} joins`;
  return sorted;
}

function f(n: number): string {
  return n.toFixed(1);
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] ?? c);
}
