import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Runs the first ```ts block under `## <heading>` (or `### <heading>`) of a package's README as written
 * (from `src/`, through the `source` condition) and returns what it printed. Throws when there is no
 * such block or the example fails. `replace`: exact text to swap before running (a Redis URL for the
 * test's own server), each of which must occur in the block.
 */
export function runReadmeExample(
  packageDir: URL,
  heading = "Example",
  timeoutMs = 30_000,
  replace: Record<string, string> = {},
): string {
  const dir = fileURLToPath(packageDir);
  const readme = readFileSync(new URL("README.md", packageDir), "utf8");
  const h2 = readme.indexOf(`\n## ${heading}\n`);
  const start = h2 >= 0 ? h2 : readme.indexOf(`\n### ${heading}\n`);
  const code = start < 0 ? undefined : /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  if (code === undefined)
    throw new Error(`${dir}README.md has no \`\`\`ts block under "## ${heading}" or "### ${heading}"`);
  let edited = code;
  for (const [from, to] of Object.entries(replace)) {
    if (!edited.includes(from)) throw new Error(`the README block under "${heading}" has no ${from}`);
    edited = edited.split(from).join(to);
  }
  const file = new URL(`.readme-example-${process.pid}.ts`, packageDir);
  writeFileSync(file, edited);
  try {
    return execFileSync(process.execPath, ["--conditions=source", "--import", "tsx", fileURLToPath(file)], {
      cwd: dir,
      encoding: "utf8",
      timeout: timeoutMs,
    });
  } finally {
    rmSync(file, { force: true });
  }
}
