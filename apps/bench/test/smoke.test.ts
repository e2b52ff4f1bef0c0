import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CASE_NAMES } from "../src/registry.js";
import type { BenchFile } from "../src/types.js";

const run = promisify(execFile);
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
const outDir = mkdtempSync(join(tmpdir(), "resil-bench-smoke-"));

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// Runs the real CLI in smoke mode (a few thousand iterations per case) so the bench cannot rot.
// Only that every case ran and produced finite numbers is asserted: never a timing.
describe("npm run bench -- --smoke", () => {
  it("runs every case and every available row has finite numbers", { timeout: 300_000 }, async () => {
    const out = join(outDir, "smoke.json");
    await run(
      process.execPath,
      ["--conditions=source", "--expose-gc", "--import", "tsx", "src/main.ts", "--smoke", "--out", out],
      { cwd: benchDir, timeout: 290_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const file = JSON.parse(readFileSync(out, "utf8")) as BenchFile;
    expect(file.mode).toBe("smoke");
    expect(file.cases.map((c) => c.case)).toEqual(CASE_NAMES);
    for (const c of file.cases) {
      expect(c.error, `${c.case} failed`).toBeUndefined();
      expect(
        c.rows.some((r) => r.available),
        `${c.case} has no available row`,
      ).toBe(true);
      for (const r of c.rows) {
        if (!r.available) {
          expect(r.note, `${c.case}/${r.id} says why it is missing`).toMatch(/^not available: /);
          continue;
        }
        for (const v of [r.median, r.min, r.max]) {
          expect(Number.isFinite(v), `${c.case}/${r.id} = ${String(v)}`).toBe(true);
        }
      }
    }
    expect(file.targets.length).toBeGreaterThan(0);
    // every limiting HTTP row says how soon its server got its keys again
    const http = file.cases.find((c) => c.case === "http")!;
    const limiting = http.rows.filter((r) => r.available && /^(ours|rlf|erl)-/.test(r.id));
    expect(limiting.length).toBeGreaterThan(0);
    for (const r of limiting) expect(r.note, r.id).toMatch(/keys back after [0-9.]+ s/);
  });
});
