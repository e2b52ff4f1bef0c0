import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RATE_DEFAULTS } from "@resil/limit";
import { describe, expect, it } from "vitest";
import { limiterBackend } from "../src/limiter-backend.js";
import { EXIT, main } from "../src/main.js";
import type { Report } from "../src/report.js";
import { memoryIo } from "./helpers/io.js";

const dir = mkdtempSync(join(tmpdir(), "resil-sim-cli-"));

async function run(argv: string[], baseDir?: string) {
  const io = memoryIo(baseDir);
  const code = await main(argv, io, limiterBackend);
  return { code, ...io };
}

async function json(argv: string[]): Promise<Report> {
  const r = await run([...argv, "--json", "-q"]);
  expect(r.code, r.err).toBe(EXIT.ok);
  return JSON.parse(r.out) as Report;
}

describe("resil-sim --version", () => {
  it("prints the version of the installed package", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    const r = await run(["--version"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe(`resil-sim ${manifest.version}\n`);
  });
});

describe("resil-sim with the real Limiter", () => {
  it("prints the table, the summary, the chart and the speed line", async () => {
    const r = await run(["--duration", "3"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(
      /^window\s+t\(s\)\s+offered\s+admitted\s+limit\s+over\s+denied\s+pod-0\s+pod-1\s+pod-2\s+pod-3$/m,
    );
    expect(r.out).toContain("utilisation:");
    expect(r.out).toContain("windows over limit: 0 of 3 (limit held; tolerance 0)");
    expect(r.out).toContain("limiter options:    the library's defaults");
    expect(r.out).toContain("# admitted");
    expect(r.err).toMatch(/^speed: 3 simulated s in [\d.]+ s wall = [\d.]+ simulated s per wall s/m);
  });

  it("prints identical output for the same seed, and different output for another", async () => {
    const argv = ["--duration", "3", "--replicas", "3", "--seed", "42", "-q"];
    const a = await run(argv);
    const b = await run(argv);
    const c = await run(["--duration", "3", "--replicas", "3", "--seed", "43", "-q"]);
    expect(a.out).toBe(b.out);
    expect(a.out).not.toBe(c.out);
  });

  it("--json carries the same numbers as the table", async () => {
    const argv = ["--duration", "4", "--load", "3", "--seed", "5"];
    const text = await run([...argv, "-q"]);
    const report = await json(argv);
    const rows = text.out
      .split("\n")
      .slice(1)
      .filter((l) => /^\s*\d+\s/.test(l))
      .slice(0, report.windows.length)
      .map((l) => l.trim().split(/\s+/).map(Number));
    expect(rows).toHaveLength(4);
    rows.forEach((cells, i) => {
      const w = report.windows[i]!;
      expect(cells.slice(0, 7)).toEqual([
        w.index,
        w.startS,
        w.offered,
        w.admitted,
        w.limit,
        w.over,
        w.denied,
      ]);
      expect(cells.slice(7)).toEqual(w.perReplica);
    });
    expect(text.out).toContain(`${report.summary.deniedRequests} requests`);
  });

  it("store outage: fail-static admits hold each window near the limit, and the debt is paid back", async () => {
    // As the simulation suite's fail-static case: the outage starts while traffic is off, so every
    // request in it is decided by the local share (limit / 4 per replica).
    const report = await json([
      "--replicas=4",
      "--algorithm=fixed",
      "--limit=100",
      "--load=5",
      "--traffic=bursty",
      "--period=4",
      "--duty=0.5",
      "--duration=8",
      "--outage=2.5-6.5",
    ]);
    const s = report.summary;
    expect(s.failStaticAdmits).toBeGreaterThan(0);
    expect(s.outcomes.allowDegraded).toBe(s.failStaticAdmits);
    expect(s.paidBack).toBeGreaterThanOrEqual(s.failStaticAdmits);
    for (const w of [4, 5]) {
      expect(report.windows[w]!.admitted).toBeGreaterThanOrEqual(96);
      expect(report.windows[w]!.admitted).toBeLessThanOrEqual(104);
    }
    // Healthy windows never go over.
    for (const w of [0, 1]) expect(report.windows[w]!.admitted).toBeLessThanOrEqual(100);
  });

  it("replica crash: the leaked concurrency slots come back within the lease (<= 6 s)", async () => {
    const report = await json([
      "--replicas=2",
      "--limit=1000",
      "--load=0.5",
      "--max-concurrent=4",
      "--hold=400",
      "--duration=10",
      "--crash=1@3",
    ]);
    const crash = report.summary.crashes[0]!;
    expect(crash.replica).toBe(1);
    expect(crash.leakedSlots).toBeGreaterThan(0);
    expect(crash.slotsReturnedAfterMs).toBeDefined();
    expect(crash.slotsReturnedAfterMs!).toBeLessThanOrEqual(6000);
    expect(report.summary.concurrency!.maxActive).toBeLessThanOrEqual(4);
    expect(report.windows[5]!.perReplica[1]).toBe(0); // the dead replica gets no traffic
    expect(report.summary.limitHeld).toBe(true);
  });

  it("--check exits 1 when a window went over, 0 when the limit held", async () => {
    // An outage that starts under load: until cacheTtlMs passes, requests are decided on the stale view.
    const over = await run([
      "--limit=100",
      "--load=10",
      "--duration=4",
      "--outage=1-3",
      "--on-store-unavailable=allow", // fail-open: over while the store is down
      "--check",
      "-q",
    ]);
    expect(over.code).toBe(EXIT.overLimit);
    expect(over.out).toMatch(/windows over limit: [1-9]/);
    const held = await run(["--duration=2", "--check", "-q"]);
    expect(held.code).toBe(EXIT.ok);
  });

  it("exits 2 on bad arguments and bad files, naming the flag or the field and line", async () => {
    const flag = await run(["--replicas", "0"]);
    expect(flag.code).toBe(EXIT.badArgs);
    expect(flag.err).toContain("--replicas (replicas):");
    const unknown = await run(["--nope"]);
    expect(unknown.code).toBe(EXIT.badArgs);
    const path = join(dir, "bad.yaml");
    writeFileSync(path, "replicas: 2\nstore:\n  latencyMs: -3\n");
    const file = await run(["--scenario", path]);
    expect(file.code).toBe(EXIT.badArgs);
    expect(file.err).toContain(`${path}:3: store.latencyMs:`);
    expect(file.out).toBe("");
  });

  it("runs a scenario file, with flags overriding it, and writes --svg and --save-scenario", async () => {
    const path = join(dir, "s.yaml");
    writeFileSync(path, "name: from-file\nreplicas: 2\nduration: 2\nlimits:\n  - limit: 20\n");
    const r = await run([
      "--scenario",
      path,
      "--replicas",
      "3",
      "--svg",
      "plot.svg",
      "--save-scenario",
      "x.yaml",
      "-q",
    ]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("from-file: 3 replicas, sliding 20/second");
    expect(r.files.get(join(r.baseDir, "plot.svg"))).toMatch(/^<svg [\s\S]*<polyline[\s\S]*<\/svg>\n$/);
    expect(r.files.get(join(r.baseDir, "x.yaml"))).toContain("replicas: 3");
  });

  it("prints limiter options a scenario changes beside the library's defaults", async () => {
    const r = await run(["--duration=1", "--cache-ttl=500", "--local-allowance=0.8", "-q"]);
    expect(r.out).toContain(
      `limiter options:    localAllowance 0.8 (library ${RATE_DEFAULTS.localAllowance}), cacheTtlMs 500 (library ${RATE_DEFAULTS.cacheTtlMs})`,
    );
    const report = await json(["--duration=1", "--cache-ttl=500"]);
    expect(report.summary.tuningOverrides).toEqual([
      { option: "cacheTtlMs", value: 500, library: RATE_DEFAULTS.cacheTtlMs },
    ]);
  });

  it("sweeps a limiter option: --vary redis-timeout", async () => {
    const r = await run(["sweep", "--vary", "redis-timeout", "--values", "1,50", "--duration", "1", "-q"]);
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).toMatch(/^redis-timeout\s+utilisation/);
    expect(r.out).toMatch(/^\s+50\s/m);
  });

  it("sweep prints one summary row per value", async () => {
    const r = await run(["sweep", "--vary", "replicas", "--values", "1,2", "--duration", "2", "-q"]);
    expect(r.code).toBe(EXIT.ok);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toMatch(/^replicas\s+utilisation\s+floor\s+max over/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^\s*1\s/);
    expect(lines[2]).toMatch(/^\s*2\s/);
    const bad = await run(["sweep", "--vary", "replicas", "--values", "1,0", "--duration", "2", "-q"]);
    expect(bad.code).toBe(EXIT.badArgs);
  });
});
