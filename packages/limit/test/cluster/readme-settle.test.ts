// The README's "Reserve then settle" example, run as written.

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

it("README: reserve then settle", () => {
  const file = new URL(`.readme-settle-${process.pid}.ts`, PACKAGE);
  writeFileSync(file, readmeExample("Reserve then settle"));
  try {
    const out = execFileSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", fileURLToPath(file)],
      {
        cwd: fileURLToPath(PACKAGE),
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(out).toBe("allow\n300\n");
  } finally {
    rmSync(file, { force: true });
  }
});
