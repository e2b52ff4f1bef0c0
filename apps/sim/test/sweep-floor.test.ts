// The sweep's verdict against a stated utilisation floor per store latency, and --vary on every limiter option.

import { describe, expect, it } from "vitest";
import { FLAG_TABLE } from "../src/flags.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { EXIT, main } from "../src/main.js";
import type { Summary } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";
import { verdict } from "../src/sweep.js";
import { utilisationFloor } from "../src/utilisation-floor.js";
import { memoryIo } from "./helpers/io.js";

const floorAt = (latencyMs: number, extra: Record<string, unknown> = {}) =>
  utilisationFloor(parseScenario({ store: { latencyMs }, ...extra }));

describe("utilisation floor", () => {
  it("is 90 % up to 20 ms, then loses one round trip of the window per window", () => {
    for (const d of [0, 5, 10, 20]) expect(floorAt(d)).toBe(0.9);
    expect(floorAt(50)).toBeCloseTo(0.9 * (1 - 30 / 1000), 12);
    expect(floorAt(100)).toBeCloseTo(0.9 * (1 - 80 / 1000), 12);
    expect(floorAt(100)).toBeLessThan(floorAt(50));
  });

  it("counts the mean jitter, scales with the shortest window, and is 0 past cacheTtlMs", () => {
    expect(utilisationFloor(parseScenario({ store: { latencyMs: 10, jitterMs: 20 } }))).toBe(0.9);
    expect(utilisationFloor(parseScenario({ store: { latencyMs: 10, jitterMs: 40 } }))).toBeCloseTo(
      0.891,
      12,
    );
    expect(utilisationFloor(parseScenario({ store: { latencyMs: 40, jitterMs: 20 } }))).toBeCloseTo(
      0.873,
      12,
    );
    expect(floorAt(100, { limits: [{ limit: 600, window: "minute" }] })).toBeCloseTo(
      0.9 * (1 - 80 / 60_000),
      12,
    );
    expect(floorAt(201)).toBe(0);
    expect(floorAt(300, { limiter: { cacheTtlMs: 500 } })).toBeGreaterThan(0.6);
  });

  it("decides the verdict: over beats everything, then the floor", () => {
    const s = (utilisation: number, limitHeld: boolean) => ({ utilisation, limitHeld }) as Summary;
    expect(verdict(s(0.9, true), 0.9)).toBe("holds");
    expect(verdict(s(0.899, true), 0.9)).toBe("under-used");
    expect(verdict(s(0.86, true), floorAt(100))).toBe("holds");
    expect(verdict(s(1, false), 0.9)).toBe("OVER");
  });
});

describe("sweep --vary", () => {
  it("accepts every limiter option and the run uses the value", async () => {
    const options = FLAG_TABLE.filter((f) => f.field?.[0] === "limiter" && f.kind === "number");
    expect(options.map((f) => f.name)).toContain("redis-timeout");
    for (const flag of options) {
      // a value inside every option's range that differs from the library's default
      const value = flag.name === "local-allowance" ? 0.5 : flag.name === "max-keys" ? 64 : 777;
      const io = memoryIo();
      const argv = [
        "sweep",
        "--vary",
        flag.name,
        "--values",
        String(value),
        "--duration",
        "1",
        "--json",
        "-q",
      ];
      const code = await main(argv, io, limiterBackend);
      expect(code, `${flag.name}: ${io.err}`).toBe(EXIT.ok);
      const out = JSON.parse(io.out) as { rows: Array<{ value: number; floor: number; summary: Summary }> };
      const field = flag.field![1]!;
      expect(out.rows[0]!.summary.tuningOverrides, flag.name).toContainEqual(
        expect.objectContaining({ option: field, value }),
      );
    }
  });

  it("prints the floor and the verdict per latency row", async () => {
    const io = memoryIo();
    const code = await main(
      ["sweep", "--vary", "latency", "--values", "0,100", "--duration", "2", "-q"],
      io,
      limiterBackend,
    );
    expect(code, io.err).toBe(EXIT.ok);
    const [header, zero, hundred] = io.out.trim().split("\n");
    expect(header).toMatch(/^latency\s+utilisation\s+floor\s/);
    expect(zero).toMatch(/\s90\.0%\s.*\sholds$/);
    expect(hundred).toMatch(/\s82\.8%\s/);
  });
});
