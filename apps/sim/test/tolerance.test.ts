import { describe, expect, it } from "vitest";
import { limiterBackend } from "../src/limiter-backend.js";
import { EXIT, main } from "../src/main.js";
import type { Report } from "../src/report.js";
import { memoryIo } from "./helpers/io.js";

// An outage under load with fail-open: every request is admitted while the store is down.
const OVER = [
  "--limit=100",
  "--load=1.5",
  "--duration=4",
  "--outage=1-3",
  "--on-store-unavailable=allow",
  "-q",
];

async function run(argv: string[]) {
  const io = memoryIo();
  const code = await main(argv, io, limiterBackend);
  return { code, ...io };
}

async function report(argv: string[]): Promise<Report> {
  const r = await run([...argv, "--json"]);
  expect(r.code, r.err).toBe(EXIT.ok);
  return JSON.parse(r.out) as Report;
}

describe("--tolerance", () => {
  it("a window is over only above the limit plus the tolerance, in units", async () => {
    const exact = (await report(OVER)).summary;
    expect(exact.windowsOver).toBeGreaterThan(0);
    expect(exact.toleranceUnits).toBe(0);
    const worst = exact.maxOverAdmission.units;
    const justEnough = (await report([...OVER, `--tolerance=${worst}`])).summary;
    expect(justEnough.windowsOver).toBe(0);
    expect(justEnough.limitHeld).toBe(true);
    expect(justEnough.windowsWithinTolerance).toBe(exact.windowsOver);
    expect(justEnough.maxOverAdmission.units).toBe(worst); // still reported
    const short = (await report([...OVER, `--tolerance=${worst - 1}`])).summary;
    expect(short.windowsOver).toBeGreaterThan(0);
  });

  it("a percentage is of the limit, and --check and the summary honour it", async () => {
    const over = await run([...OVER, "--check"]);
    expect(over.code).toBe(EXIT.overLimit);
    expect(over.out).toMatch(/windows over limit: [1-9]\d* of \d+ \(tolerance 0\)/);
    const held = await run([...OVER, "--check", "--tolerance=100%"]);
    expect(held.code).toBe(EXIT.ok);
    expect(held.out).toMatch(
      /windows over limit: 0 of \d+ \(limit held; tolerance 100% = 100 units, [1-9]\d* within it\)/,
    );
  });

  it("the sweep's verdict uses it", async () => {
    const argv = ["sweep", "--vary", "seed", "--values", "1", ...OVER];
    expect((await run(argv)).out).toMatch(/OVER\n$/);
    expect((await run([...argv, "--tolerance=100%"])).out).not.toContain("OVER");
  });

  it("rejects a tolerance that is neither units nor a percentage", async () => {
    const r = await run(["--tolerance=-2"]);
    expect(r.code).toBe(EXIT.badArgs);
    expect(r.err).toContain("--tolerance (tolerance):");
  });
});
