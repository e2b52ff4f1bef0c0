import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCli } from "../src/args.js";
import { FLAG_TABLE, parserOptions, SWEEP_PARAMS } from "../src/flags.js";
import { parseScenario } from "../src/scenario.js";
import { usage } from "../src/usage.js";

const help = usage();

describe("--help", () => {
  it("lists every flag the parser knows, with its short form", () => {
    const options = parserOptions();
    expect(Object.keys(options).length).toBeGreaterThan(40);
    for (const [name, o] of Object.entries(options)) {
      expect(help, `--${name}`).toMatch(new RegExp(`(^|[ ,])--${name}( |$)`, "m"));
      if (o.short) expect(help).toMatch(new RegExp(`^ {2}-${o.short}, --${name}[ \\n]`, "m"));
    }
  });

  it("names no flag the parser does not know", () => {
    const named = new Set([...help.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!));
    for (const name of named) expect(Object.keys(parserOptions()), `--${name}`).toContain(name);
  });

  it("prints the defaults the scenario really uses (the library's, for limiter options)", () => {
    const d = parseScenario({});
    expect(help).toMatch(new RegExp(`--local-allowance A .*\\[${d.limiter.localAllowance}\\]`));
    expect(help).toMatch(new RegExp(`--cache-ttl MS .*\\[${d.limiter.cacheTtlMs}\\]`));
    expect(help).toMatch(new RegExp(`--redis-timeout MS .*\\[${d.limiter.redisTimeoutMs}\\]`));
    expect(help).toMatch(/--replicas N +replicas at the start \[4\]/);
  });

  it("lists every sweep parameter, and a sweep accepts each of them", () => {
    for (const p of Object.keys(SWEEP_PARAMS)) {
      expect(help).toContain(p);
      expect(parseCli(["sweep", "--vary", p, "--values", "1"]).sweep?.param).toBe(p);
    }
    const tuning = FLAG_TABLE.filter((f) => f.field?.[0] === "limiter" && f.kind === "number").map(
      (f) => f.name,
    );
    expect(tuning).toEqual(
      expect.arrayContaining(["redis-timeout", "sync-interval", "cache-ttl", "local-allowance"]),
    );
    for (const name of [...tuning, "replicas", "latency", "jitter", "load"])
      expect(SWEEP_PARAMS).toHaveProperty(name);
  });

  it("keeps lines within 100 columns", () => {
    for (const line of help.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it("is what the README shows under Flags", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const block = /## Flags[^\n]*\n+```\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(help);
  });
});
