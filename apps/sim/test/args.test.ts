import { describe, expect, it } from "vitest";
import { mergeOverrides, parseCli, SWEEP_PARAMS } from "../src/args.js";
import { ArgsError } from "../src/errors.js";

describe("parseCli", () => {
  it("maps flags onto scenario fields", () => {
    const cli = parseCli([
      "--replicas",
      "8",
      "--limit",
      "100",
      "--window",
      "minute",
      "--algorithm",
      "token_bucket",
      "--load",
      "2.5",
      "--duration",
      "30",
      "--seed",
      "9",
      "--sync-interval",
      "50",
      "--latency",
      "2",
      "--jitter",
      "1",
      "--traffic",
      "bursty",
      "--skew",
      "0.6",
      "--on-store-unavailable",
      "allow",
    ]);
    expect(cli.command).toBe("run");
    expect(cli.overrides).toEqual({
      replicas: 8,
      limits: [{ limit: 100, window: "minute" }],
      algorithm: "token",
      load: 2.5,
      duration: 30,
      seed: 9,
      limiter: { syncIntervalMs: 50, onStoreUnavailable: "allow" },
      store: { latencyMs: 2, jitterMs: 1 },
      traffic: { shape: "bursty", skew: 0.6 },
    });
    expect(cli.flagOf.get("limiter.syncIntervalMs")).toBe("--sync-interval");
  });

  it("reads limit lists, weighted costs and faults", () => {
    const cli = parseCli([
      "--limit",
      "50/s,2000/min",
      "--cost",
      "1:0.9,10:0.1",
      "--outage",
      "10-40",
      "--slow",
      "5-8:50",
      "--crash",
      "2@30",
      "--crash",
      "45",
      "--join",
      "50",
      "--max-concurrent",
      "5",
      "--hold",
      "250",
    ]);
    expect(cli.overrides.limits).toEqual([
      { limit: 50, window: "second" },
      { limit: 2000, window: "minute" },
    ]);
    expect(cli.overrides.costs).toEqual([
      { cost: 1, weight: 0.9 },
      { cost: 10, weight: 0.1 },
    ]);
    expect(cli.overrides.faults).toEqual([
      { type: "outage", from: 10, to: 40 },
      { type: "slow", from: 5, to: 8, latencyMs: 50 },
      { type: "crash", at: 30, replica: 2 },
      { type: "crash", at: 45, replica: 0 },
      { type: "join", at: 50 },
    ]);
    expect(cli.overrides.concurrency).toEqual({ max: 5, holdMs: 250 });
  });

  it("parses sweeps from a list or a range", () => {
    expect(parseCli(["sweep", "--vary", "latency", "--values", "0,1,5"]).sweep).toEqual({
      param: "latency",
      values: [0, 1, 5],
    });
    expect(parseCli(["sweep", "--vary", "replicas", "--range", "2..8:2"]).sweep).toEqual({
      param: "replicas",
      values: [2, 4, 6, 8],
    });
  });

  it("reads --tolerance as units or a percentage of the limit", () => {
    expect(parseCli(["--tolerance", "3"]).overrides.tolerance).toBe(3);
    expect(parseCli(["--tolerance", "1.5%"]).overrides.tolerance).toBe("1.5%");
    expect(parseCli(["--tolerance", "1%"]).flagOf.get("tolerance")).toBe("--tolerance");
  });

  it("sweeps the library's tuning options", () => {
    expect(parseCli(["sweep", "--vary", "redis-timeout", "--values", "5,10,50"]).sweep).toEqual({
      param: "redis-timeout",
      values: [5, 10, 50],
    });
    expect(SWEEP_PARAMS["redis-timeout"]).toEqual(["limiter", "redisTimeoutMs"]);
    expect(SWEEP_PARAMS["cache-ttl"]).toEqual(["limiter", "cacheTtlMs"]);
    expect(SWEEP_PARAMS["max-concurrent"]).toEqual(["concurrency", "max"]);
  });

  it.each([
    [["--tolerance", "lots"], /--tolerance: expected a number, got "lots"/],
    [["--tolerance", "x%"], /--tolerance: expected a number, got "x"/],
    [["--replicas", "many"], /--replicas: expected a number, got "many"/],
    [["--window", "week"], /--window: expected second, minute or hour/],
    [["--algorithm", "leaky"], /--algorithm: expected fixed, sliding or token/],
    [["--frobnicate"], /Unknown option '--frobnicate'/],
    [["--outage", "10"], /--outage: expected from-to/],
    [["--slow", "1-2"], /--slow: expected from-to:ms/],
    [["--hold", "5"], /--hold: needs --max-concurrent/],
    [["walk"], /unknown command "walk"/],
    [["sweep", "--values", "1,2"], /sweep: --vary is required/],
    [["sweep", "--vary", "colour", "--values", "1"], /--vary: expected one of/],
    [["sweep", "--vary", "load"], /exactly one of --values/],
    [["sweep", "--vary", "load", "--range", "5..1"], /--range: expected from <= to/],
    [["--vary", "load"], /--vary: only for the sweep command/],
    [["--progress", "sometimes"], /--progress: expected auto, always or never/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseCli(argv)).toThrow(ArgsError);
    expect(() => parseCli(argv)).toThrow(message);
  });

  it("merges flags over a file: values replaced, nested objects merged, faults joined", () => {
    const merged = mergeOverrides(
      { replicas: 2, limiter: { cacheTtlMs: 900, syncIntervalMs: 20 }, faults: [{ type: "join", at: 1 }] },
      { replicas: 6, limiter: { syncIntervalMs: 50 }, faults: [{ type: "outage", from: 2, to: 3 }] },
    );
    expect(merged).toEqual({
      replicas: 6,
      limiter: { cacheTtlMs: 900, syncIntervalMs: 50 },
      faults: [
        { type: "join", at: 1 },
        { type: "outage", from: 2, to: 3 },
      ],
    });
  });
});
