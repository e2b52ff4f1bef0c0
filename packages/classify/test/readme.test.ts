// The README's example runs as written (from src/, through the `source` condition).
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const EXPECT = ["retryAfterMs: 20000", "vendorConcurrency: true", "{ kind: 'connect' } true"];

it("the README example runs", () => {
  const dir = fileURLToPath(new URL("..", import.meta.url));
  const readme = readFileSync(`${dir}README.md`, "utf8");
  const code = /## Example\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  const file = `${dir}.readme-example-${process.pid}.ts`;
  writeFileSync(file, code!);
  try {
    const out = execFileSync(process.execPath, ["--conditions=source", "--import", "tsx", file], {
      cwd: dir,
      encoding: "utf8",
      timeout: 30_000,
    });
    for (const line of EXPECT) expect(out).toContain(line);
  } finally {
    rmSync(file, { force: true });
  }
}, 40_000);
