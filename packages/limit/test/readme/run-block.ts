// Runs the first ts block under a heading of the package README as a user would paste it.

import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PACKAGE = new URL("../../", import.meta.url);

function readmeExample(heading: string): string {
  const readme = readFileSync(new URL("README.md", PACKAGE), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  if (start < 0 || code === undefined) throw new Error(`README.md: no ts block under "## ${heading}"`);
  return code;
}

/** Runs the example under `heading` from src/ (the `source` condition) and returns what it printed. */
export function runReadmeBlock(heading: string): string {
  const file = new URL(`.readme-example-${randomUUID()}.ts`, PACKAGE);
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
