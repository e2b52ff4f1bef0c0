import { describe, expect, it } from "vitest";
import { ProgressBar } from "../src/progress.js";
import { renderChart } from "../src/render-chart.js";
import { renderSvg } from "../src/render-svg.js";
import { renderTable } from "../src/render-table.js";
import type { Report, WindowRow } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { speedLine } from "../src/speed.js";

function report(admitted: number[], offered = 200): Report {
  const windows: WindowRow[] = admitted.map((a, i) => ({
    index: i,
    startS: i,
    offered,
    admitted: a,
    denied: offered - a,
    limit: 50,
    over: Math.max(0, a - 50),
    perReplica: [a],
  }));
  const summary = {} as Report["summary"];
  return { scenario: parseScenario({ replicas: 1 }), pods: ["pod-0"], windowMs: 1000, windows, summary };
}

describe("renderers", () => {
  it("draws the limit line, admitted bars, over-limit marks and clipped offered", () => {
    const chart = renderChart(report([50, 50, 90, 10]), { width: 4, height: 10 });
    const rows = chart.split("\n");
    expect(rows.some((r) => r.includes("|==!="))).toBe(true); // limit row: bars reaching it keep "="
    expect(rows.some((r) => /\|\s*\^\^\^\^/.test(r))).toBe(true); // offered 200 > 2 x limit: off the top
    expect(chart).toContain("!");
  });

  it("shows the first, last and over-limit windows of a long run", () => {
    const admitted = Array.from({ length: 200 }, (_, i) => (i === 120 ? 70 : 50));
    const table = renderTable(report(admitted), { maxRows: 12 });
    expect(table).toMatch(/^\s+120\s+120\s+200\s+70\s+50\s+\+20\s/m);
    expect(table).toMatch(/\.\.\. \d+ window\(s\) not shown/);
    // 12 rows allowed: the first 4, the last 2, and the window over the limit.
    const shown = table
      .split("\n")
      .filter((l) => /^\s*\d+\s/.test(l))
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(shown).toEqual([0, 1, 2, 3, 120, 198, 199]);
  });

  it("writes a standalone SVG with three series", () => {
    const svg = renderSvg(report([40, 50, 45]));
    expect(svg.startsWith("<svg xmlns=")).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg).toContain("limit (50 per window)");
  });

  it("prints the speed line as simulated seconds per wall second", () => {
    expect(speedLine(3600, 18_000, "8 replicas")).toBe(
      "speed: 3600 simulated s in 18.00 s wall = 200 simulated s per wall s (8 replicas)",
    );
  });

  it("draws the progress bar only after a second, and clears it", () => {
    let now = 0;
    let out = "";
    const bar = new ProgressBar({ write: (s) => (out += s), now: () => now }, "run", true);
    bar.update(0.1);
    expect(out).toBe("");
    now = 1500;
    bar.update(0.5);
    expect(out).toMatch(/\]\s+50% run/);
    bar.done();
    expect(out.endsWith("\r")).toBe(true);
    const off = new ProgressBar({ write: (s) => (out += s), now: () => now + 5000 }, "x", false);
    const before = out;
    off.update(0.9);
    expect(out).toBe(before);
  });
});
