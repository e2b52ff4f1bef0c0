import { describe, expect, it } from "vitest";
import { END, readmeRegion, replaceRegion, resultsPage, START } from "../src/readme-table.js";
import type { BenchFile } from "../src/types.js";

const file: BenchFile = {
  version: 1,
  mode: "full",
  generatedAt: "2026-01-01T00:00:00.000Z",
  machine: { cpu: "Test CPU", cores: 2, node: "v20.0.0", platform: "linux", arch: "x64", memGiB: 4 },
  totalMs: 1000,
  loadAvg: [0.5, 0.7],
  cases: [
    {
      case: "hot-1",
      title: "Hot",
      description: "d",
      durationMs: 1,
      rows: [
        {
          id: "floor",
          label: "floor",
          unit: "ns/op",
          median: 10,
          min: 9,
          max: 11,
          samples: 3,
          spreadPct: 5,
          wide: false,
          available: true,
        },
        {
          id: "resil-trycheck",
          label: "resil",
          unit: "ns/op",
          median: 15,
          min: 14,
          max: 16,
          samples: 3,
          spreadPct: 5,
          wide: false,
          available: true,
        },
        {
          id: "resil-check",
          label: "check",
          unit: "ns/op",
          median: null,
          min: null,
          max: null,
          samples: 0,
          spreadPct: null,
          wide: false,
          available: false,
          note: "not available: missing",
        },
      ],
    },
  ],
  targets: [{ name: "t", goal: "<= 2x", ratio: 1.5, met: true, from: "x" }],
};

describe("replaceRegion", () => {
  it("rewrites only the text between the markers", () => {
    const readme = `# title\n\nbefore\n${START}\nold table\n${END}\nafter\n`;
    const out = replaceRegion(readme, "new table");
    expect(out).toBe(`# title\n\nbefore\n${START}\nnew table\n${END}\nafter\n`);
  });

  it("refuses a README without the markers", () => {
    expect(() => replaceRegion("# no markers\n", "x")).toThrow(/markers/);
    expect(() => replaceRegion(`${END}\n${START}\n`, "x")).toThrow(/markers/);
  });
});

describe("readmeRegion", () => {
  it("names the machine and the source file, shows the targets and links the full tables", () => {
    const body = readmeRegion(file, "apps/bench/results/bench.json");
    expect(body).toContain("Test CPU, 2 cores");
    expect(body).toContain("| t | <= 2x | 1.50x | yes |");
    expect(body).toContain("](apps/bench/RESULTS.md)");
    expect(body).not.toContain("| resil | 15 ns/op");
    expect(body).not.toContain(START);
  });
});

describe("resultsPage", () => {
  it("names the machine and the source file, and shows ratios and missing rows", () => {
    const body = resultsPage(file, "apps/bench/results/bench.json");
    expect(body).toContain("Test CPU, 2 cores");
    expect(body).toContain("Node v20.0.0");
    expect(body).toContain("apps/bench/results/bench.json");
    expect(body).toMatch(/\| resil \| 15 ns\/op .*\| 14 \| .*\| 1\.50x \|/);
    expect(body).toContain("not available: missing");
    expect(body).not.toContain(START);
  });
});
