import { SeededRandom } from "@resil/limit/testing";
import { describe, expect, it } from "vitest";
import { parseCli } from "../src/args.js";
import { ArgsError } from "../src/errors.js";
import { runKeys } from "../src/keys-run.js";
import { parsePopularity, SubjectPicker } from "../src/popularity.js";
import { parseScenario } from "../src/scenario.js";

describe("keys run (many subjects of one family)", () => {
  it("holds every subject's limit with 4 replicas, hot subjects over their limit included", async () => {
    // 200 requests a second over 2,000 subjects: the most popular gets about 17 % (34/s, limit 10/s)
    const s = parseScenario({
      replicas: 4,
      duration: 8,
      load: 20,
      limits: [{ limit: 10, window: "second" }],
    });
    const run = await runKeys(s, { count: 2000, popularity: { kind: "zipf", s: 1.1 } });
    const w = run.windows[0]!;
    expect(w.over).toBe(0);
    expect(w.worst).toBe(10); // the hot subject reached its limit
    expect(run.denied).toBeGreaterThan(0);
    expect(run.subjectsSeen).toBeGreaterThan(300);
    expect(run.storeCallsPerS).toBeGreaterThan(0);
    expect(run.keySyncsPerS).toBeGreaterThanOrEqual(run.storeCallsPerS);
    expect(run.admitted + run.denied).toBe(run.requests);
  });

  it("holds per-subject limits with each replica's own loop, second and minute windows", async () => {
    const s = parseScenario({
      replicas: 4,
      duration: 6,
      load: 300, // x the minute limit's rate: 100 requests a second over 500 subjects
      driver: "loop",
      limits: [
        { limit: 5, window: "second" },
        { limit: 20, window: "minute" },
      ],
    });
    const run = await runKeys(s, { count: 500, popularity: { kind: "zipf", s: 1.1 } });
    for (const w of run.windows) expect(w.over).toBe(0);
    expect(run.windows[1]!.worst).toBe(20);
    expect(run.subjectsHeldMax).toBeGreaterThan(0);
  });

  it("admits everything far below the limit, spread evenly", async () => {
    const s = parseScenario({
      replicas: 4,
      duration: 4,
      load: 2,
      limits: [{ limit: 100, window: "second" }],
    });
    const run = await runKeys(s, { count: 1000, popularity: { kind: "uniform" } });
    expect(run.denied).toBe(0);
    expect(run.windows[0]!.over).toBe(0);
  });
});

describe("popularity", () => {
  it("zipf favours the first subjects; uniform does not", () => {
    const rng = new SeededRandom(3);
    const zipf = new SubjectPicker(1000, parsePopularity("zipf:1.1"));
    const flat = new SubjectPicker(1000, parsePopularity("uniform"));
    let zTop = 0;
    let uTop = 0;
    for (let i = 0; i < 20_000; i++) {
      if (zipf.pick(rng) === 0) zTop++;
      if (flat.pick(rng) === 0) uTop++;
    }
    expect(zTop / 20_000).toBeCloseTo(zipf.share(0), 1);
    expect(zipf.share(0)).toBeGreaterThan(0.1);
    expect(uTop).toBeLessThan(60);
  });

  it("reads the flags and names a bad value", () => {
    expect(parseCli(["--keys", "100000", "--popularity", "zipf:1.1"]).keys).toEqual({
      count: 100_000,
      popularity: { kind: "zipf", s: 1.1 },
    });
    expect(parseCli(["--keys", "10"]).keys?.popularity).toEqual({ kind: "zipf", s: 1.1 });
    expect(() => parseCli(["--keys", "0"])).toThrow(/--keys/);
    expect(() => parseCli(["--keys", "5", "--popularity", "pareto"])).toThrow(ArgsError);
    expect(() => parseCli(["--popularity", "uniform"])).toThrow(/needs --keys/);
  });
});
