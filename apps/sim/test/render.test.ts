import { describe, expect, it } from "vitest";
import { ProgressBar } from "../src/progress.js";
import { renderChart } from "../src/render-chart.js";
import { renderSvg } from "../src/render-svg.js";
import { renderTable } from "../src/render-table.js";
import type { Report, WindowRow } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { speedLine } from "../src/speed.js";

function report(
  admitted: number[],
  offered = 200,
  scenario: Record<string, unknown> = { replicas: 1 },
): Report {
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
  return { scenario: parseScenario(scenario), pods: ["pod-0"], windowMs: 1000, windows, summary };
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

  it("labels the SVG's y axis with round values: 1, 2 or 5 x 10^k steps from 0", () => {
    // offered 1065 a window once gave ticks 280/559/839/1118
    for (const offered of [1065, 200, 37, 4.2, 98_765]) {
      const svg = renderSvg(report([40, 50, 45], offered));
      const labels = [...svg.matchAll(/<text class="y-tick"[^>]*>([^<]+)<\/text>/g)].map((m) => Number(m[1]));
      expect(labels.length, String(offered)).toBeGreaterThanOrEqual(3);
      expect(labels[0]).toBe(0);
      const step = labels[1]! - labels[0]!;
      const mantissa = step / 10 ** Math.floor(Math.log10(step));
      expect([1, 2, 5]).toContainEqual(Number(mantissa.toPrecision(6)));
      for (const [i, v] of labels.entries()) expect(v).toBeCloseTo(i * step, 9);
      expect(labels.at(-1)!).toBeGreaterThanOrEqual(Math.max(offered, 50));
      expect(labels.at(-2)!).toBeLessThan(Math.max(offered, 50) * 1.02);
    }
  });

  it("puts the SVG legend above the plot area, clear of the data", () => {
    const svg = renderSvg(
      report([40, 50, 45], 1065, { replicas: 2, faults: [{ type: "crash", at: 1, replica: 1 }] }),
    );
    const legendY = Number(/class="legend" transform="translate\([\d.]+,([\d.]+)\)"/.exec(svg)?.[1]);
    const rows = [...svg.matchAll(/<g transform="translate\([\d.]+,([\d.]+)\)">/g)].map((m) => Number(m[1]));
    const tickYs = [...svg.matchAll(/<line x1="64" x2="776" y1="([\d.]+)"/g)].map((m) => Number(m[1]));
    const plotTop = Math.min(...tickYs);
    expect(legendY + Math.max(...rows) + 4).toBeLessThan(plotTop);
    expect(svg).toContain(">replica crash</text>");
  });

  it("draws the scenario's faults: shaded outage and slow spans, crash and join marks, each labelled", () => {
    const faults = [
      { type: "outage", from: 1, to: 2 },
      { type: "slow", from: 2.5, to: 3, latencyMs: 40 },
      { type: "crash", at: 0.5, replica: 0 },
      { type: "join", at: 1.5 },
    ];
    const svg = renderSvg(report([40, 50, 45, 50], 100, { replicas: 1, duration: 4, faults }));
    const band = /<rect class="fault fault-outage" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    // plot 64..776 over 4 s: 178 px a second
    expect(Number(band[1])).toBeCloseTo(64 + 178, 0);
    expect(Number(band[2])).toBeCloseTo(178, 0);
    expect(svg).toMatch(/<rect class="fault fault-slow"/);
    expect(svg).toMatch(/<line class="fault fault-crash"/);
    expect(svg).toMatch(/<line class="fault fault-join"/);
    const labels = [...svg.matchAll(/<text class="fault-label"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(["pod-0 crashes", "store down", "pod-1 joins", "store +40 ms"]);
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
