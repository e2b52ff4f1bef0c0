// Importing one entry point must not load another framework (they are optional peers, types only).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const dir = fileURLToPath(new URL("..", import.meta.url));

/** The bare specifiers resolved while importing `entry` in a fresh process. */
function resolvedBy(entry: string): string[] {
  const out = execFileSync(
    process.execPath,
    [
      "--conditions=source",
      "--import",
      "tsx",
      "--import",
      "./test/fixtures/track-resolves.mjs",
      "-e",
      `await import(${JSON.stringify(entry)})`,
    ],
    { cwd: dir, encoding: "utf8", timeout: 30_000 },
  );
  return [
    ...new Set(
      out
        .split("\n")
        .filter((l) => l.startsWith("resolve "))
        .map((l) => l.slice(8)),
    ),
  ].sort();
}

it.each([
  ["@resil/middleware"],
  ["@resil/middleware/express"],
  ["@resil/middleware/fastify"],
  ["@resil/middleware/hono"],
])(
  "%s loads no framework at run time",
  (entry) => {
    const loaded = resolvedBy(entry);
    expect(loaded).toContain(entry); // the tracker saw the import itself
    expect(loaded.filter((s) => /^(express|fastify|hono|@hono\/)/.test(s))).toEqual([]);
    expect(loaded.filter((s) => s !== entry)).toEqual(["@resil/http"]);
  },
  40_000,
);
