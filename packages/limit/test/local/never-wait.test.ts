import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/never-acquire.ts", import.meta.url));

function start(mode: "never" | "control"): ChildProcess {
  return spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, mode], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

// Resolves with the exit code, or "running" if the child is still alive `graceMs` after it printed.
function outcome(child: ChildProcess, graceMs: number): Promise<{ result: number | "running"; out: string }> {
  return new Promise((resolve) => {
    let out = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("waiting") && !timer) {
        timer = setTimeout(() => resolve({ result: "running", out }), graceMs);
      }
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("exit", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ result: code ?? -1, out });
    });
  });
}

describe("NEVER waits", () => {
  it("do not keep the process alive: a script that only waits forever exits by itself", async () => {
    const child = start("never");
    const watchdog = setTimeout(() => child.kill(), 15_000);
    const { result, out } = await outcome(child, 5_000);
    clearTimeout(watchdog);
    if (result === "running") child.kill();
    expect(out).toContain("waiting");
    expect(result).toBe(0);
  }, 20_000);

  it("control: a finite wait does keep the process alive (so the check above can fail)", async () => {
    const child = start("control");
    const watchdog = setTimeout(() => child.kill(), 15_000);
    const { result, out } = await outcome(child, 1_000);
    clearTimeout(watchdog);
    child.kill();
    expect(out).toContain("waiting");
    expect(result).toBe("running");
  }, 20_000);
});
