import { parseArgs } from "node:util";
import { ArgsError } from "./errors.js";
import { FLAG_TABLE, parserOptions, SWEEP_PARAMS } from "./flags.js";
import type { KeysOptions } from "./keys-run.js";
import { parseKeyCount, parsePopularity } from "./popularity.js";
import { parseSettle } from "./settle.js";

export { SWEEP_PARAMS } from "./flags.js";

export type SweepParam = string;

export interface CliOptions {
  command: "run" | "sweep" | "help" | "version";
  scenarioFile: string | undefined;
  /** Scenario fields set by flags, nested like the scenario file (merged over it). */
  overrides: Record<string, unknown>;
  /** Scenario field (dotted) -> the flag that set it, so a bad value is reported by its flag. */
  flagOf: Map<string, string>;
  json: boolean;
  check: boolean;
  svg: string | undefined;
  saveScenario: string | undefined;
  rows: number;
  quiet: boolean;
  progress: "auto" | "always" | "never";
  sweep: { param: SweepParam; values: number[] } | undefined;
  /** A keys run (--keys): many subjects of one family. */
  keys: KeysOptions | undefined;
}

const WINDOW_ALIASES: Record<string, string> = {
  s: "second",
  sec: "second",
  second: "second",
  m: "minute",
  min: "minute",
  minute: "minute",
  h: "hour",
  hour: "hour",
};

const ALGORITHM_ALIASES: Record<string, string> = {
  fixed: "fixed",
  fixed_window: "fixed",
  "fixed-window": "fixed",
  sliding: "sliding",
  sliding_window: "sliding",
  "sliding-window": "sliding",
  token: "token",
  token_bucket: "token",
  "token-bucket": "token",
  gcra: "token",
};

/** Parses the command line (without `node` and the script). Throws ArgsError naming the bad flag. */
export function parseCli(argv: string[]): CliOptions {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: parserOptions(), allowPositionals: true, strict: true });
  } catch (err) {
    throw new ArgsError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  const values = parsed.values as Record<string, string | boolean | Array<string | boolean> | undefined>;
  const str = (flag: string) => {
    const raw = values[flag];
    return typeof raw === "string" ? raw : undefined;
  };
  const list = (flag: string) => {
    const raw = values[flag];
    return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === "string") : [];
  };
  const positionals = parsed.positionals;
  let command: CliOptions["command"] = "run";
  if (positionals[0] === "sweep") command = "sweep";
  else if (positionals[0] === "run") command = "run";
  else if (positionals[0] === "help") command = "help";
  else if (positionals.length > 0)
    throw new ArgsError(`unknown command "${positionals[0]}" (expected run or sweep)`);
  if (positionals.length > 1) throw new ArgsError(`unexpected argument "${positionals[1]}"`);
  if (values.help === true) command = "help";
  else if (values.version === true) command = "version";

  const overrides: Record<string, unknown> = {};
  const flagOf = new Map<string, string>();
  const set = (flag: string, path: readonly string[], value: unknown) => {
    setPath(overrides, path, value);
    flagOf.set(path.join("."), `--${flag}`);
  };

  for (const f of FLAG_TABLE) {
    const raw = str(f.name);
    if (raw === undefined || !f.field || !f.kind) continue;
    set(f.name, f.field, f.kind === "number" ? number(f.name, raw) : raw);
  }
  const algorithm = str("algorithm");
  if (algorithm !== undefined) {
    const alg = ALGORITHM_ALIASES[algorithm.toLowerCase()];
    if (!alg) throw new ArgsError(`--algorithm: expected fixed, sliding or token, got "${algorithm}"`);
    set("algorithm", ["algorithm"], alg);
  }
  const limit = str("limit");
  const window = str("window");
  if (limit !== undefined || window !== undefined) set("limit", ["limits"], limits(limit, window));
  const cost = str("cost");
  if (cost !== undefined) set("cost", ["costs"], costs(cost));
  const settle = str("settle");
  if (settle !== undefined) set("settle", ["settle"], parseSettle(settle));
  if (str("hold") !== undefined && str("max-concurrent") === undefined)
    throw new ArgsError("--hold: needs --max-concurrent");
  const tolerance = str("tolerance");
  if (tolerance !== undefined) set("tolerance", ["tolerance"], parseTolerance(tolerance));
  const faults = [
    ...list("outage").map((x) => ({ type: "outage", ...span("outage", x) })),
    ...list("slow").map((x) => slow(x)),
    ...list("crash").map((x) => crash(x)),
    ...list("join").map((x) => ({ type: "join", at: number("join", x) })),
  ];
  if (faults.length > 0) set("outage", ["faults"], faults);

  const progress = str("progress") ?? "auto";
  if (progress !== "auto" && progress !== "always" && progress !== "never")
    throw new ArgsError(`--progress: expected auto, always or never, got "${progress}"`);
  const rowsRaw = str("rows");
  const rows = rowsRaw === undefined ? 60 : number("rows", rowsRaw);
  if (!Number.isInteger(rows) || rows < 1)
    throw new ArgsError(`--rows: expected a positive integer, got "${rowsRaw}"`);

  let sweep: CliOptions["sweep"];
  const vary = str("vary");
  if (command === "sweep") {
    const names = Object.keys(SWEEP_PARAMS).join(", ");
    if (vary === undefined) throw new ArgsError(`sweep: --vary is required (one of ${names})`);
    if (!Object.hasOwn(SWEEP_PARAMS, vary))
      throw new ArgsError(`--vary: expected one of ${names}, got "${vary}"`);
    const valuesRaw = str("values");
    const rangeRaw = str("range");
    if ((valuesRaw === undefined) === (rangeRaw === undefined))
      throw new ArgsError("sweep: give exactly one of --values a,b,c or --range from..to[:step]");
    sweep = {
      param: vary,
      values: valuesRaw !== undefined ? numberList("values", valuesRaw) : range(rangeRaw!),
    };
  } else {
    for (const flag of ["vary", "values", "range"])
      if (values[flag] !== undefined) throw new ArgsError(`--${flag}: only for the sweep command`);
  }

  const keysRaw = str("keys");
  const popularity = str("popularity");
  if (popularity !== undefined && keysRaw === undefined) throw new ArgsError("--popularity: needs --keys");
  if (keysRaw !== undefined && command === "sweep") throw new ArgsError("--keys: not with the sweep command");
  const keys =
    keysRaw === undefined
      ? undefined
      : { count: parseKeyCount(keysRaw), popularity: parsePopularity(popularity ?? "zipf:1.1") };

  return {
    command,
    keys,
    scenarioFile: str("scenario"),
    overrides,
    flagOf,
    json: values.json === true,
    check: values.check === true,
    svg: str("svg"),
    saveScenario: str("save-scenario"),
    rows,
    quiet: values.quiet === true,
    progress,
    sweep,
  };
}

/** `3` (units) or `1%` (of each window's limit). */
function parseTolerance(raw: string): number | string {
  const trimmed = raw.trim();
  if (trimmed.endsWith("%")) {
    number("tolerance", trimmed.slice(0, -1));
    return trimmed;
  }
  return number("tolerance", trimmed);
}

function number(flag: string, raw: string): number {
  const n = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(n)) throw new ArgsError(`--${flag}: expected a number, got "${raw}"`);
  return n;
}

function numberList(flag: string, raw: string): number[] {
  const list = raw.split(",").map((x) => number(flag, x));
  if (list.length === 0) throw new ArgsError(`--${flag}: expected a comma-separated list of numbers`);
  return list;
}

/** `from..to` or `from..to:step` (inclusive). */
function range(raw: string): number[] {
  const m = /^\s*([^.:]+)\.\.([^:]+)(?::(.+))?$/.exec(raw);
  if (!m) throw new ArgsError(`--range: expected from..to or from..to:step, got "${raw}"`);
  const from = number("range", m[1]!);
  const to = number("range", m[2]!);
  const step = m[3] === undefined ? 1 : number("range", m[3]);
  if (!(step > 0) || to < from)
    throw new ArgsError(`--range: expected from <= to and step > 0, got "${raw}"`);
  const out: number[] = [];
  for (let i = 0; from + i * step <= to + 1e-9; i++) {
    if (i >= 1000) throw new ArgsError(`--range: more than 1000 values in "${raw}"`);
    out.push(Number((from + i * step).toPrecision(12)));
  }
  return out;
}

/** `--limit 50` with `--window`, or a list `50/s,3000/min`. */
function limits(
  limit: string | undefined,
  window: string | undefined,
): Array<{ limit: number; window: string }> {
  const parseWindow = (flag: string, w: string) => {
    const name = WINDOW_ALIASES[w.trim().toLowerCase()];
    if (!name) throw new ArgsError(`--${flag}: expected second, minute or hour, got "${w}"`);
    return name;
  };
  const defaultWindow = window === undefined ? "second" : parseWindow("window", window);
  if (limit === undefined) return [{ limit: 50, window: defaultWindow }];
  return limit.split(",").map((part) => {
    const [n, w] = part.split("/");
    return { limit: number("limit", n!), window: w === undefined ? defaultWindow : parseWindow("limit", w) };
  });
}

/** `--cost 5` or weighted `--cost 1:0.9,10:0.1` (cost:weight). */
function costs(raw: string): Array<{ cost: number; weight: number }> {
  return raw.split(",").map((part) => {
    const [c, w] = part.split(":");
    return { cost: number("cost", c!), weight: w === undefined ? 1 : number("cost", w) };
  });
}

/** `10-40` seconds. */
function span(flag: string, raw: string): { from: number; to: number } {
  const m = /^\s*([^-]+)-(.+)$/.exec(raw);
  if (!m) throw new ArgsError(`--${flag}: expected from-to in seconds (e.g. 10-40), got "${raw}"`);
  return { from: number(flag, m[1]!), to: number(flag, m[2]!) };
}

/** `10-20:50`: the store is 50 ms slower from 10 s to 20 s. */
function slow(raw: string): Record<string, unknown> {
  const [when, ms] = raw.split(":");
  if (ms === undefined) throw new ArgsError(`--slow: expected from-to:ms (e.g. 10-20:50), got "${raw}"`);
  return { type: "slow", ...span("slow", when!), latencyMs: number("slow", ms) };
}

/** `30` (replica 0 at 30 s) or `2@30` (replica 2 at 30 s). */
function crash(raw: string): Record<string, unknown> {
  const [a, b] = raw.split("@");
  if (b === undefined) return { type: "crash", at: number("crash", a!), replica: 0 };
  return { type: "crash", at: number("crash", b), replica: number("crash", a!) };
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next && typeof next === "object" && !Array.isArray(next)) node = next as Record<string, unknown>;
    else {
      const fresh: Record<string, unknown> = {};
      node[key] = fresh;
      node = fresh;
    }
  }
  node[path[path.length - 1]!] = value;
}

/** Sets a nested field (for sweeps). */
export function withField(
  raw: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(raw);
  setPath(copy, path, value);
  return copy;
}

/** The file's fields with the flags' over them; fault lists are joined, other values replaced. */
export function mergeOverrides(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (k === "faults" && Array.isArray(b) && Array.isArray(v)) out[k] = [...b, ...v];
    else if (isPlain(b) && isPlain(v)) out[k] = mergeOverrides(b, v);
    else out[k] = v;
  }
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
