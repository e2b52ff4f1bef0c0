import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { limiterBackend } from "../src/limiter-backend.js";
import { EXIT, invocationDir, main } from "../src/main.js";
import type { Report } from "../src/report.js";
import { memoryIo } from "./helpers/io.js";

const userDir = mkdtempSync(join(tmpdir(), "resil-sim-paths-"));
writeFileSync(join(userDir, "tiny.yaml"), "name: tiny\nreplicas: 2\nduration: 2\n");
const simDir = fileURLToPath(new URL("..", import.meta.url));

describe("paths are taken from where the user ran the command", () => {
  it("uses INIT_CWD (set by npm run, which moves into the package) before the working directory", () => {
    expect(invocationDir({ INIT_CWD: "/repo" }, "/repo/apps/sim")).toBe("/repo");
    expect(invocationDir({}, "/somewhere")).toBe("/somewhere");
    expect(invocationDir({ INIT_CWD: "" }, "/somewhere")).toBe("/somewhere");
  });

  it("reads the scenario and writes --svg and --save-scenario relative to the base directory", async () => {
    const io = memoryIo(userDir);
    const argv = ["--scenario", "tiny.yaml", "--svg", "out/plot.svg", "--save-scenario", "s.yaml", "-q"];
    expect(await main(argv, io, limiterBackend), io.err).toBe(EXIT.ok);
    expect(io.out).toContain("tiny: 2 replicas");
    expect([...io.files.keys()].sort()).toEqual([join(userDir, "out/plot.svg"), join(userDir, "s.yaml")]);
  });

  it("names a missing scenario file as given, and the path it looked at", async () => {
    const io = memoryIo(userDir);
    expect(await main(["--scenario", "nope.yaml"], io, limiterBackend)).toBe(EXIT.badArgs);
    expect(io.err).toContain("nope.yaml: cannot read the scenario file");
    expect(io.err).toContain(join(userDir, "nope.yaml"));
  });

  it("as npm runs it (cwd apps/sim, INIT_CWD the caller's): stdout is nothing but the JSON", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=source",
        "--import",
        "tsx",
        "src/cli.ts",
        "--scenario",
        "tiny.yaml",
        "--json",
        "--svg",
        "p.svg",
      ],
      { cwd: simDir, env: { ...process.env, INIT_CWD: userDir }, timeout: 30_000 },
    );
    const report = JSON.parse(stdout) as Report;
    expect(report.scenario.name).toBe("tiny");
    expect(stderr).toMatch(/^speed: /m);
    expect(readFileSync(join(userDir, "p.svg"), "utf8")).toMatch(/^<svg /);
  }, 40_000);
});
