import { parseScenario, type Scenario } from "./scenario.js";

/** Where a flag is listed in `--help`. */
export type FlagGroup = "scenario" | "limiter" | "store" | "output" | "sweep" | "general";

/** One command-line flag: the parser and `--help` are both built from the table of these. */
export interface FlagSpec {
  name: string;
  short?: string;
  /** A boolean flag takes no value. */
  type: "boolean" | "string";
  /** The flag may be repeated (fault flags). */
  multiple?: boolean;
  /** What the value looks like in `--help` (N, MS, FILE...). */
  value?: string;
  description: string;
  group: FlagGroup;
  /** The scenario field the flag sets from its value, and how the value is read. */
  field?: readonly string[];
  kind?: "number" | "word";
  /** The default as `--help` prints it; when absent, a field flag shows the default scenario's value. */
  default?: string;
  /** `sweep --vary` accepts this flag (a number flag with a field). */
  sweep?: true;
}

const scenario = (f: Omit<FlagSpec, "group" | "type">): FlagSpec => ({
  type: "string",
  group: "scenario",
  ...f,
});
const limiter = (f: Omit<FlagSpec, "group" | "type">): FlagSpec => ({
  type: "string",
  group: "limiter",
  ...f,
});
const tuning = (name: string, field: string, value: string, description: string): FlagSpec =>
  limiter({ name, field: ["limiter", field], kind: "number", value, description, sweep: true });

/** Every flag the CLI knows, in `--help` order. */
export const FLAG_TABLE: readonly FlagSpec[] = [
  scenario({
    name: "scenario",
    short: "s",
    value: "FILE",
    description: "JSON or YAML scenario; flags override its fields",
  }),
  scenario({
    name: "name",
    field: ["name"],
    kind: "word",
    value: "NAME",
    description: "name printed in the summary",
  }),
  scenario({
    name: "replicas",
    short: "n",
    field: ["replicas"],
    kind: "number",
    value: "N",
    description: "replicas at the start",
    sweep: true,
  }),
  scenario({
    name: "limit",
    short: "l",
    value: "L",
    description: "units per window; or a list: 50/s,2000/min",
    default: "50",
  }),
  scenario({
    name: "window",
    short: "w",
    value: "W",
    description: "second | minute | hour, for a plain --limit",
    default: "second",
  }),
  scenario({
    name: "algorithm",
    short: "a",
    value: "A",
    description: "fixed | sliding | token",
    default: "sliding",
  }),
  scenario({
    name: "burst",
    field: ["burst"],
    kind: "number",
    value: "N",
    description: "token bucket capacity",
    default: "the limit",
    sweep: true,
  }),
  scenario({
    name: "load",
    field: ["load"],
    kind: "number",
    value: "X",
    description: "offered load, a multiple of the tightest limit",
    sweep: true,
  }),
  scenario({
    name: "duration",
    short: "d",
    field: ["duration"],
    kind: "number",
    value: "S",
    description: "simulated seconds",
    sweep: true,
  }),
  scenario({
    name: "seed",
    field: ["seed"],
    kind: "number",
    value: "N",
    description: "random seed",
    sweep: true,
  }),
  scenario({
    name: "traffic",
    field: ["traffic", "shape"],
    kind: "word",
    value: "SHAPE",
    description: "steady | bursty | diurnal | skewed",
  }),
  scenario({
    name: "skew",
    field: ["traffic", "skew"],
    kind: "number",
    value: "SHARE",
    description: "share of traffic on replica 0",
    default: "even; 0.8 for skewed",
    sweep: true,
  }),
  scenario({
    name: "period",
    field: ["traffic", "period"],
    kind: "number",
    value: "S",
    description: "bursty / diurnal period",
    default: "10 / the whole run",
    sweep: true,
  }),
  scenario({
    name: "duty",
    field: ["traffic", "duty"],
    kind: "number",
    value: "F",
    description: "bursty: fraction of the period that is on",
    sweep: true,
  }),
  scenario({
    name: "trough",
    field: ["traffic", "trough"],
    kind: "number",
    value: "F",
    description: "diurnal: lowest rate as a fraction of the mean",
    sweep: true,
  }),
  scenario({
    name: "cost",
    value: "C",
    description: "cost per request, or weighted costs 1:0.9,10:0.1",
    default: "1",
  }),
  tuning("sync-interval", "syncIntervalMs", "MS", "sync period of a busy key"),
  tuning("local-allowance", "localAllowance", "A", "share of the free budget one grant may take"),
  tuning("cache-ttl", "cacheTtlMs", "MS", "trust in a store view; outage tolerance"),
  tuning("redis-timeout", "redisTimeoutMs", "MS", "longest wait of a request on a sync"),
  tuning("lease-ttl", "leaseTtlMs", "MS", "life of a reservation in the store"),
  tuning("heartbeat", "heartbeatMs", "MS", "heartbeat period"),
  tuning("slow-sync", "slowSyncMs", "MS", "sync period of a quiet key"),
  tuning("round-timeout", "roundTimeoutMs", "MS", "deadline of one store round trip"),
  tuning("tick", "tickMs", "MS", "background loop tick (loop driver only)"),
  tuning("max-keys", "maxKeysPerRound", "N", "keys per round trip"),
  limiter({
    name: "on-store-unavailable",
    field: ["limiter", "onStoreUnavailable"],
    kind: "word",
    value: "MODE",
    description: "localShare | allow",
  }),
  limiter({
    name: "last-mile",
    field: ["limiter", "lastMile"],
    kind: "word",
    value: "MODE",
    description: "sync | local",
  }),
  limiter({
    name: "max-concurrent",
    field: ["concurrency", "max"],
    kind: "number",
    value: "N",
    description: "also cap concurrency at N slots",
    default: "none",
    sweep: true,
  }),
  limiter({
    name: "hold",
    field: ["concurrency", "holdMs"],
    kind: "number",
    value: "MS",
    description: "how long an admitted request holds its slot",
    default: "100",
    sweep: true,
  }),
  limiter({
    name: "driver",
    field: ["driver"],
    kind: "word",
    value: "D",
    description:
      "steps: a sync round on every replica every --sync-every ms, the reference model; loop: each replica's own background loop",
  }),
  limiter({
    name: "sync-every",
    field: ["syncEveryMs"],
    kind: "number",
    value: "MS",
    description: "steps driver: sync period in simulated ms",
    sweep: true,
  }),
  {
    name: "latency",
    type: "string",
    group: "store",
    field: ["store", "latencyMs"],
    kind: "number",
    value: "MS",
    description: "store round-trip latency",
    sweep: true,
  },
  {
    name: "jitter",
    type: "string",
    group: "store",
    field: ["store", "jitterMs"],
    kind: "number",
    value: "MS",
    description: "extra random latency, uniform in [0, MS)",
    sweep: true,
  },
  {
    name: "outage",
    type: "string",
    group: "store",
    multiple: true,
    value: "T1-T2",
    description: "the store is down from T1 to T2",
  },
  {
    name: "slow",
    type: "string",
    group: "store",
    multiple: true,
    value: "T1-T2:MS",
    description: "the store is MS slower from T1 to T2",
  },
  {
    name: "crash",
    type: "string",
    group: "store",
    multiple: true,
    value: "[R@]T",
    description: "replica R [0] crashes at T (leases and slots leak)",
  },
  {
    name: "join",
    type: "string",
    group: "store",
    multiple: true,
    value: "T",
    description: "a new replica joins at T",
  },
  {
    name: "tolerance",
    type: "string",
    group: "output",
    field: ["tolerance"],
    value: "T",
    description: "a window is over only above its limit + T units (or T%, e.g. 1%)",
  },
  {
    name: "json",
    type: "boolean",
    group: "output",
    description: "the report as JSON on stdout (nothing else on stdout)",
  },
  {
    name: "svg",
    type: "string",
    group: "output",
    value: "FILE",
    description: "write an SVG plot of offered, admitted, limit and faults",
  },
  {
    name: "check",
    type: "boolean",
    group: "output",
    description: "exit 1 when any window went over its limit (+ tolerance)",
  },
  {
    name: "save-scenario",
    type: "string",
    group: "output",
    value: "FILE",
    description: "write the effective scenario as YAML",
  },
  {
    name: "rows",
    type: "string",
    group: "output",
    value: "N",
    description: "most table rows",
    default: "60",
  },
  {
    name: "progress",
    type: "string",
    group: "output",
    value: "WHEN",
    description: "auto (TTY) | always | never",
    default: "auto",
  },
  {
    name: "quiet",
    short: "q",
    type: "boolean",
    group: "output",
    description: "no speed line, no progress bar",
  },
  {
    name: "vary",
    type: "string",
    group: "sweep",
    value: "P",
    description: "the flag to vary, one of P below",
  },
  { name: "values", type: "string", group: "sweep", value: "a,b,c", description: "the values to try, or" },
  {
    name: "range",
    type: "string",
    group: "sweep",
    value: "FROM..TO[:STEP]",
    description: "from FROM to TO by STEP [1]",
  },
  { name: "help", short: "h", type: "boolean", group: "general", description: "this text" },
  { name: "version", type: "boolean", group: "general", description: "the version" },
];

/** The flags `sweep --vary` accepts, and the scenario field each one sets. */
export const SWEEP_PARAMS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  FLAG_TABLE.filter((f) => f.sweep && f.field).map((f) => [f.name, f.field!]),
);

/** The table as `node:util` parseArgs options. */
export function parserOptions(): Record<
  string,
  { type: "boolean" | "string"; short?: string; multiple?: boolean }
> {
  return Object.fromEntries(
    FLAG_TABLE.map((f) => [
      f.name,
      {
        type: f.type,
        ...(f.short ? { short: f.short } : {}),
        ...(f.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

/** The default `--help` prints for a flag: its own, else the default scenario's value of its field. */
export function helpDefault(f: FlagSpec, defaults: Scenario = parseScenario({})): string | undefined {
  if (f.default !== undefined) return f.default;
  if (!f.field) return undefined;
  let node: unknown = defaults;
  for (const key of f.field) node = (node as Record<string, unknown> | undefined)?.[key];
  return node === undefined ? undefined : String(node);
}
