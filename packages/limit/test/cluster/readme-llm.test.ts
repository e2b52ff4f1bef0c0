// The README's "Reserve then settle", "Several budgets in one decision" and "Pacing by the upstream's own headers" examples, run as written.

import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const PACKAGE = new URL("../../", import.meta.url);

function readmeExample(heading: string): string {
  const readme = readFileSync(new URL("README.md", PACKAGE), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  if (start < 0 || code === undefined) throw new Error(`README.md: no ts block under "## ${heading}"`);
  return code;
}

/** Runs the example under `heading` from src/ (the `source` condition) and returns what it printed. */
function run(heading: string): string {
  const file = new URL(`.readme-example-${process.pid}.ts`, PACKAGE);
  writeFileSync(file, readmeExample(heading));
  try {
    return execFileSync(process.execPath, ["--conditions=source", "--import", "tsx", fileURLToPath(file)], {
      cwd: fileURLToPath(PACKAGE),
      encoding: "utf8",
      timeout: 30_000,
    });
  } finally {
    rmSync(file, { force: true });
  }
}

it("README: reserve then settle", () => {
  expect(run("Reserve then settle")).toBe("allow\n300\n");
});

it("README: several budgets in one decision", () => {
  expect(run("Several budgets in one decision")).toBe("allow\nallow\ndeny\nallow\n");
});

it("README: pacing by the upstream's own headers", () => {
  expect(run("Pacing by the upstream's own headers")).toBe("100 ms later, admitted\nundefined\n");
});
