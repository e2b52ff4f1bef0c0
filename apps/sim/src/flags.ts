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

type Extra = Pick<FlagSpec, "default" | "short">;

/** `"replicas/n"`: the name, and after a slash its one-letter short form. */
function named(names: string, extra: Extra = {}): Pick<FlagSpec, "name" | "short" | "default"> {
  const [name, short] = names.split("/");
  return { name: name!, ...(short ? { short } : {}), ...extra };
}
/** A number that sets one scenario field (dotted path); `sweep --vary` accepts it. */
const num = (
  group: FlagGroup,
  names: string,
  value: string,
  field: string,
  description: string,
  extra?: Extra,
) =>
  ({
    ...named(names, extra),
    type: "string",
    group,
    value,
    field: field.split("."),
    kind: "number",
    description,
    sweep: true,
  }) as FlagSpec;
/** A word that sets one scenario field (dotted path). */
const word = (group: FlagGroup, names: string, value: string, field: string, description: string) =>
  ({
    ...named(names),
    type: "string",
    group,
    value,
    field: field.split("."),
    kind: "word",
    description,
  }) as FlagSpec;
/** A string the parser reads itself (lists, spans, files); `multiple` for fault flags. */
const text = (
  group: FlagGroup,
  names: string,
  value: string,
  description: string,
  extra?: Extra & { multiple?: true },
) =>
  ({
    ...named(names, extra),
    type: "string",
    group,
    value,
    description,
    multiple: extra?.multiple,
  }) as FlagSpec;
const bool = (group: FlagGroup, names: string, description: string) =>
  ({ ...named(names), type: "boolean", group, description }) as FlagSpec;
const tuning = (name: string, field: string, value: string, description: string) =>
  num("limiter", name, value, `limiter.${field}`, description);

/** Every flag the CLI knows, in `--help` order. */
export const FLAG_TABLE: readonly FlagSpec[] = [
  text("scenario", "scenario/s", "FILE", "JSON or YAML scenario; flags override its fields"),
  word("scenario", "name", "NAME", "name", "name printed in the summary"),
  num("scenario", "replicas/n", "N", "replicas", "replicas at the start"),
  text("scenario", "limit/l", "L", "units per window; or a list: 50/s,2000/min", { default: "50" }),
  text("scenario", "window/w", "W", "second | minute | hour, for a plain --limit", { default: "second" }),
  text("scenario", "algorithm/a", "A", "fixed | sliding | token", { default: "sliding" }),
  num("scenario", "burst", "N", "burst", "token bucket capacity", { default: "the limit" }),
  num("scenario", "load", "X", "load", "offered load, a multiple of the tightest limit"),
  num("scenario", "duration/d", "S", "duration", "simulated seconds"),
  num("scenario", "seed", "N", "seed", "random seed"),
  word("scenario", "traffic", "SHAPE", "traffic.shape", "steady | bursty | diurnal | skewed"),
  num("scenario", "skew", "SHARE", "traffic.skew", "share of traffic on replica 0", {
    default: "even; 0.8 for skewed",
  }),
  num("scenario", "period", "S", "traffic.period", "bursty / diurnal period", {
    default: "10 / the whole run",
  }),
  num("scenario", "duty", "F", "traffic.duty", "bursty: fraction of the period that is on"),
  num("scenario", "trough", "F", "traffic.trough", "diurnal: lowest rate as a fraction of the mean"),
  text("scenario", "keys", "N", "N subjects of one family, each with the limits (keys run)"),
  text("scenario", "popularity", "P", "keys run: uniform | zipf:S", { default: "zipf:1.1" }),
  text("scenario", "cost", "C", "cost per request, or weighted costs 1:0.9,10:0.1", { default: "1" }),
  text("scenario", "settle", "LO..HI[@MS]", "settle each admit MS [100] later at cost x uniform [LO, HI]"),
  num("scenario", "wait", "MS", "wait.maxWaitMs", "wait up to MS for capacity (Pacer), then deny", {
    default: "off: deny at once",
  }),
  num("scenario", "wait-poll", "MS", "wait.pollMs", "--wait: how often a denied waiter asks again", {
    default: "5",
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
  word("limiter", "on-store-unavailable", "MODE", "limiter.onStoreUnavailable", "localShare | allow"),
  word("limiter", "last-mile", "MODE", "limiter.lastMile", "sync | local"),
  num("limiter", "max-concurrent", "N", "concurrency.max", "also cap concurrency at N slots", {
    default: "none",
  }),
  num("limiter", "hold", "MS", "concurrency.holdMs", "how long an admitted request holds its slot", {
    default: "100",
  }),
  word(
    "limiter",
    "driver",
    "D",
    "driver",
    "steps: a sync round on every replica every --sync-every ms, the reference model; loop: each replica's own background loop",
  ),
  num("limiter", "sync-every", "MS", "syncEveryMs", "steps driver: sync period in simulated ms"),
  num("store", "latency", "MS", "store.latencyMs", "store round-trip latency"),
  num("store", "jitter", "MS", "store.jitterMs", "extra random latency, uniform in [0, MS)"),
  text("store", "outage", "T1-T2", "the store is down from T1 to T2", { multiple: true }),
  text("store", "slow", "T1-T2:MS", "the store is MS slower from T1 to T2", { multiple: true }),
  text("store", "crash", "[R@]T", "replica R [0] crashes at T (leases and slots leak)", { multiple: true }),
  text("store", "join", "T", "a new replica joins at T", { multiple: true }),
  text("output", "tolerance", "T", "a window is over only above its limit + T units (or T%, e.g. 1%)", {
    default: "0",
  }),
  bool("output", "json", "the report as JSON on stdout (nothing else on stdout)"),
  text("output", "svg", "FILE", "write an SVG plot of offered, admitted, limit and faults"),
  bool("output", "check", "exit 1 when any window went over its limit (+ tolerance)"),
  text("output", "save-scenario", "FILE", "write the effective scenario as YAML"),
  text("output", "rows", "N", "most table rows", { default: "60" }),
  text("output", "progress", "WHEN", "auto (TTY) | always | never", { default: "auto" }),
  bool("output", "quiet/q", "no speed line, no progress bar"),
  text("sweep", "vary", "P", "the flag to vary, one of P below"),
  text("sweep", "values", "a,b,c", "the values to try, or"),
  text("sweep", "range", "FROM..TO[:STEP]", "from FROM to TO by STEP [1]"),
  bool("general", "help/h", "this text"),
  bool("general", "version", "the version"),
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
