// Waiting for capacity in the simulation (`--wait MS`, issue 17): each replica queues its requests on
// the library's Pacer instead of denying them; a request is denied only when its wait times out.

import { describe, expect, it } from "vitest";
import { parseCli } from "../src/args.js";
import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { main } from "../src/main.js";
import { renderSummary } from "../src/render-summary.js";
import { buildReport } from "../src/report.js";
import { parseScenario, type ScenarioInput } from "../src/scenario.js";
import { memoryIo } from "./helpers/io.js";

async function report(input: ScenarioInput) {
  return buildReport(await simulate(parseScenario(input), limiterBackend));
}

describe("--wait", () => {
  it("reads MS onto wait.maxWaitMs, with the Pacer's poll period by default", () => {
    expect(parseCli(["--wait", "200"]).overrides.wait).toEqual({ maxWaitMs: 200 });
    expect(parseCli(["--wait", "200", "--wait-poll", "2"]).overrides.wait).toEqual({
      maxWaitMs: 200,
      pollMs: 2,
    });
    expect(parseScenario({ wait: { maxWaitMs: 200 } }).wait).toEqual({ maxWaitMs: 200, pollMs: 5 });
  });

  it("names the field when a value is out of range or missing", () => {
    expect(() => parseScenario({ wait: { maxWaitMs: 0 } })).toThrow(/wait\.maxWaitMs/);
    expect(() => parseScenario({ wait: { maxWaitMs: 100, pollMs: 0 } })).toThrow(/wait\.pollMs/);
    expect(() => parseScenario({ wait: { pollMs: 5 } })).toThrow(/wait\.maxWaitMs/);
  });

  it("a keys run refuses --wait and --settle instead of ignoring them", async () => {
    for (const flag of [
      ["--wait", "100"],
      ["--settle", "0.5..2"],
    ]) {
      const io = memoryIo();
      expect(await main(["--keys", "10", "--duration", "1", ...flag], io, limiterBackend)).toBe(2);
      expect(io.err).toMatch(/--settle and --wait are not simulated in a keys run/);
    }
  });

  it("below the limit nothing waits out its maximum: no request is denied", async () => {
    const r = await report({
      replicas: 4,
      limits: [{ limit: 100 }],
      load: 0.5,
      duration: 10,
      wait: { maxWaitMs: 50 },
    });
    expect(r.summary.deniedRequests).toBe(0);
    expect(r.summary.waits?.timedOut).toBe(0);
    expect(r.summary.admitted).toBe(r.summary.offered);
  });

  it.each(["fixed", "sliding", "token"] as const)(
    "%s window at 3x: the limit holds, every deny is a timed-out wait, no wait past its maximum",
    async (algorithm) => {
      const r = await report({
        replicas: 4,
        limits: [{ limit: 100 }],
        load: 3,
        algorithm,
        duration: 10,
        wait: { maxWaitMs: 150 },
      });
      const w = r.summary.waits!;
      expect(r.summary.windowsOver).toBe(0);
      expect(r.summary.deniedRequests).toBe(w.timedOut);
      expect(w.admitted).toBeGreaterThan(0);
      expect(w.longestMs).toBeLessThanOrEqual(150);
      expect(r.summary.utilisation).toBeGreaterThanOrEqual(0.9);
      // a token bucket starts full: its first window may take limit + burst (101.4 % read before)
      expect(r.summary.utilisation).toBeLessThanOrEqual(1);
      expect(r.summary.starvedReplicas).toBe(0);
      expect(renderSummary(r)).toMatch(
        /^waits: +\d+ requests admitted after waiting \(longest \d+ ms of 150\)/m,
      );
    },
  );

  // Found by a run: with bursty traffic waits drain into the off windows, where nothing is offered;
  // utilisation read 145.7 % while what a window could admit ignored the queue it inherited.
  it("bursty traffic: the queue carried into an off window counts in what it could admit", async () => {
    const input = {
      replicas: 4,
      limits: [{ limit: 50 }],
      load: 5,
      duration: 8,
      traffic: { shape: "bursty" as const, period: 2, duty: 0.5 },
    };
    const deny = await report(input);
    const wait = await report({ ...input, wait: { maxWaitMs: 1000 } });
    expect(wait.summary.admitted).toBeGreaterThan(deny.summary.admitted * 1.5);
    expect(wait.summary.utilisation).toBeLessThanOrEqual(1);
    expect(wait.summary.utilisation).toBeGreaterThanOrEqual(0.9);
    expect(wait.summary.windowsOver).toBe(0);
  });

  // Found by a run: waits the Pacer admitted at the run's last instant were counted in its last window
  // (418 of 300 at 59 s with a fixed window, 4 replicas, seed 11, 1:0.9,50:0.1, --wait 200).
  it("a wait decided after the last step is not counted in the last window", async () => {
    const r = await report({
      replicas: 4,
      limits: [{ limit: 300 }],
      load: 3,
      algorithm: "fixed",
      costs: [
        { cost: 1, weight: 0.9 },
        { cost: 50, weight: 0.1 },
      ],
      duration: 60,
      seed: 11,
      wait: { maxWaitMs: 200 },
    });
    expect(r.windows.at(-1)!.admitted).toBeLessThanOrEqual(300);
    expect(r.summary.windowsOver).toBe(0);
  });
});
