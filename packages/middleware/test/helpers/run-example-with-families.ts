// TEMPORARY, delete at merge: testkit's runReadmeExample with the families shim preloaded, for as
// long as @resil/limit has no setFamily of its own.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Limiter } from "@resil/limit";
import { runReadmeExample } from "@resil/testkit";

const PRELOAD = fileURLToPath(new URL("./families-preload.ts", import.meta.url));

/** runReadmeExample, with a Limiter.setFamily shim preloaded when the Limiter has none. */
export function runExample(packageDir: URL, heading: string): string {
  if (typeof (Limiter.prototype as { setFamily?: unknown }).setFamily === "function") {
    return runReadmeExample(packageDir, heading);
  }
  const dir = fileURLToPath(packageDir);
  const readme = readFileSync(new URL("README.md", packageDir), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  const code = start < 0 ? undefined : /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  if (code === undefined) throw new Error(`README.md has no \`\`\`ts block under "## ${heading}"`);
  const file = new URL(`.readme-example-${process.pid}.ts`, packageDir);
  writeFileSync(file, code);
  try {
    return execFileSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "--import", PRELOAD, fileURLToPath(file)],
      { cwd: dir, encoding: "utf8", timeout: 30_000 },
    );
  } finally {
    rmSync(file, { force: true });
  }
}
