import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ScenarioError } from "../src/errors.js";
import { parseScenario } from "../src/scenario.js";
import {
  loadScenarioFile,
  parseScenarioText,
  scenarioToYaml,
  validateScenario,
} from "../src/scenario-file.js";

const dir = mkdtempSync(join(tmpdir(), "resil-sim-"));

describe("scenario files", () => {
  it("round-trips a scenario through YAML", () => {
    const s = parseScenario({
      name: "trip",
      replicas: 3,
      algorithm: "fixed",
      limits: [
        { limit: 100, window: "second" },
        { limit: 3000, window: "minute" },
      ],
      costs: [
        { cost: 1, weight: 3 },
        { cost: 5, weight: 1 },
      ],
      concurrency: { max: 4 },
      faults: [
        { type: "outage", from: 1, to: 2 },
        { type: "crash", at: 3, replica: 2 },
      ],
    });
    const path = join(dir, "trip.yaml");
    writeFileSync(path, scenarioToYaml(s));
    expect(loadScenarioFile(path)).toEqual(s);
  });

  it("reads JSON files too", () => {
    const path = join(dir, "s.json");
    writeFileSync(path, JSON.stringify({ replicas: 2, load: 1.5 }, null, 2));
    const s = loadScenarioFile(path);
    expect(s.replicas).toBe(2);
    expect(s.load).toBe(1.5);
  });

  it("names the field and the line of a bad value", () => {
    const text = [
      "name: bad",
      "replicas: 2",
      "limiter:",
      "  cacheTtlMs: 500",
      "  syncIntervalMs: 3",
      "",
    ].join("\n");
    const src = parseScenarioText(text, "bad.yaml");
    expect(() => validateScenario(src.value, src)).toThrow("bad.yaml:5: limiter.syncIntervalMs:");
  });

  it("points an unknown field and a bad list item at their lines", () => {
    const unknown = parseScenarioText("replicas: 2\nspeed: 9\n", "u.yaml");
    expect(() => validateScenario(unknown.value, unknown)).toThrow(/^u\.yaml:2: speed: unknown field/);
    const fault = parseScenarioText(
      "faults:\n  - type: outage\n    from: 1\n    to: 2\n  - type: crash\n    at: -1\n",
      "f.yaml",
    );
    try {
      validateScenario(fault.value, fault);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ScenarioError);
      expect((err as ScenarioError).field).toBe("faults[1].at");
      expect((err as ScenarioError).line).toBe(6);
    }
  });

  it("reports a syntax error with its line, and a file that is not a mapping", () => {
    expect(() => parseScenarioText("replicas: 2\nlimits: [1, 2\n", "s.yaml")).toThrow(/^s\.yaml:\d+:/);
    expect(() => parseScenarioText("- 1\n- 2\n", "l.yaml")).toThrow(
      "l.yaml:1: a scenario file must hold a mapping",
    );
    expect(() => loadScenarioFile(join(dir, "missing.yaml"))).toThrow(/cannot read the scenario file/);
  });
});
