import { bucketize } from "./render-chart.js";
import type { Report } from "./report.js";

/** An SVG line plot of offered, admitted and limit per window, for a design document. */
export function renderSvg(report: Report): string {
  const W = 800;
  const H = 360;
  const m = { l: 60, r: 20, t: 40, b: 50 };
  const cols = bucketize(report, 400);
  const limit = report.windows[0]?.limit ?? 1;
  let top = limit;
  for (const c of cols) top = Math.max(top, c.offered, c.admitted);
  top *= 1.05;
  const span = (report.windows.length * report.windowMs) / 1000;
  const x = (i: number) => m.l + ((W - m.l - m.r) * (i + 0.5)) / cols.length;
  const y = (v: number) => H - m.b - ((H - m.t - m.b) * v) / top;
  const path = (vals: number[]) => vals.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const s = report.scenario;
  const title = `${s.name}: ${s.replicas} replicas, ${s.algorithm} ${s.limits
    .map((l) => `${l.limit}/${l.window}`)
    .join(" + ")}, load ${s.load}x`;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = top * f;
    return `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/><text x="${m.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Math.round(v)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">
<rect width="${W}" height="${H}" fill="white"/>
<text x="${W / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(title)}</text>
${ticks.join("\n")}
<line x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${H - m.b}" stroke="#333"/>
<line x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}" stroke="#333"/>
<text x="${m.l}" y="${H - m.b + 18}" text-anchor="middle">0 s</text>
<text x="${W - m.r}" y="${H - m.b + 18}" text-anchor="middle">${span} s</text>
<text x="${W / 2}" y="${H - 12}" text-anchor="middle">simulated time (per ${report.windowMs / 1000} s window)</text>
<polyline fill="none" stroke="#999" stroke-width="1.5" points="${path(cols.map((c) => c.offered))}"/>
<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${path(cols.map((c) => c.admitted))}"/>
<line x1="${m.l}" x2="${W - m.r}" y1="${y(limit).toFixed(1)}" y2="${y(limit).toFixed(1)}" stroke="#d62728" stroke-dasharray="6 4"/>
<g transform="translate(${W - m.r - 200},${m.t})">
<rect width="190" height="58" fill="white" stroke="#ccc"/>
<line x1="8" x2="28" y1="14" y2="14" stroke="#999" stroke-width="1.5"/><text x="34" y="18">offered</text>
<line x1="8" x2="28" y1="30" y2="30" stroke="#1f77b4" stroke-width="2"/><text x="34" y="34">admitted</text>
<line x1="8" x2="28" y1="46" y2="46" stroke="#d62728" stroke-dasharray="6 4"/><text x="34" y="50">limit (${limit} per window)</text>
</g>
</svg>
`;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] ?? c);
}
