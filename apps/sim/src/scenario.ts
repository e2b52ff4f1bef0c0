import { PACER_DEFAULTS } from "@resil/limit";
import { z } from "zod";
import { ScenarioError } from "./errors.js";
import { LIBRARY_DEFAULTS as LIB } from "./library-defaults.js";

/** Window names and their lengths in ms (the limiter's three windows). */
export const WINDOW_MS = { second: 1000, minute: 60_000, hour: 3_600_000 } as const;
export type WindowName = keyof typeof WINDOW_MS;

const windowName = z.enum(["second", "minute", "hour"]);
const seconds = z.number().nonnegative();

const limitSchema = z.strictObject({
  limit: z.number().int().positive(),
  window: windowName.default("second"),
});

const trafficSchema = z.strictObject({
  /** steady; bursty (on/off, mean kept); diurnal (a cosine ramp, mean kept); skewed (steady, skew 0.8). */
  shape: z.enum(["steady", "bursty", "diurnal", "skewed"]).default("steady"),
  /** Share of all traffic sent to replica 0 (the rest split evenly); absent = even. */
  skew: z.number().min(0).max(1).optional(),
  /** Bursty / diurnal period in simulated seconds; diurnal defaults to the whole run. */
  period: z.number().positive().optional(),
  /** Bursty: fraction of each period that is "on". */
  duty: z.number().gt(0).max(1).default(0.25),
  /** Diurnal: the lowest rate as a fraction of the mean. */
  trough: z.number().min(0).max(1).default(0.1),
});

const costSchema = z.strictObject({
  cost: z.number().int().positive(),
  weight: z.number().positive().default(1),
});

// Every default is the library's own, so a run without a limiter section shows what users get.
/** Reserve then settle: each admitted request's actual cost is its estimate x uniform [min, max]. */
const settleSchema = z
  .strictObject({
    min: z.number().nonnegative(),
    max: z.number().nonnegative(),
    /** Settled this long after admission (simulated ms). */
    afterMs: z.number().nonnegative().default(100),
  })
  .refine((x) => x.min <= x.max, { message: "min must not be above max", path: ["max"] });

/** Waiting for capacity (`Pacer`): a request not admitted at once waits up to maxWaitMs, then is denied. */
const waitSchema = z.strictObject({
  maxWaitMs: z.number().int().min(1).max(60_000),
  /** How often the head of a replica's queue asks again while denied (the Pacer's `pollMs`). */
  pollMs: z.number().int().min(1).max(1000).default(PACER_DEFAULTS.pollMs),
});

const limiterSchema = z.strictObject({
  syncIntervalMs: z.number().int().min(10).max(10_000).default(LIB.syncIntervalMs),
  localAllowance: z.number().positive().default(LIB.localAllowance),
  cacheTtlMs: z.number().int().min(50).max(60_000).default(LIB.cacheTtlMs),
  redisTimeoutMs: z.number().int().min(1).max(5000).default(LIB.redisTimeoutMs),
  leaseTtlMs: z.number().int().positive().default(LIB.leaseTtlMs),
  heartbeatMs: z.number().int().positive().default(LIB.heartbeatMs),
  slowSyncMs: z.number().int().positive().default(LIB.slowSyncMs),
  roundTimeoutMs: z.number().int().positive().default(LIB.roundTimeoutMs),
  tickMs: z.number().int().positive().default(LIB.tickMs),
  maxKeysPerRound: z.number().int().positive().default(LIB.maxKeysPerRound),
  onStoreUnavailable: z.enum(["localShare", "allow"]).default(LIB.onStoreUnavailable),
  lastMile: z.enum(["sync", "local"]).default(LIB.lastMile),
});

const storeSchema = z.strictObject({
  /** Round-trip latency of the store in ms (simulated). */
  latencyMs: z.number().nonnegative().default(0),
  /** Extra uniform random latency in [0, jitterMs). */
  jitterMs: z.number().nonnegative().default(0),
});

const concurrencySchema = z.strictObject({
  max: z.number().int().positive(),
  /** How long an admitted request holds its slot, in ms. */
  holdMs: z.number().positive().default(100),
});

const faultSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("outage"), from: seconds, to: seconds }),
  z.strictObject({
    type: z.literal("slow"),
    from: seconds,
    to: seconds,
    latencyMs: z.number().nonnegative(),
  }),
  z.strictObject({
    type: z.literal("crash"),
    at: seconds,
    replica: z.number().int().nonnegative().default(0),
  }),
  z.strictObject({ type: z.literal("join"), at: seconds }),
]);

export const scenarioSchema = z
  .strictObject({
    name: z.string().min(1).default("default"),
    replicas: z.number().int().min(1).max(256).default(4),
    /** Simulated seconds. */
    duration: z
      .number()
      .positive()
      .max(7 * 86_400)
      .default(60),
    seed: z.number().int().nonnegative().default(1),
    algorithm: z.enum(["fixed", "sliding", "token"]).default("sliding"),
    limits: z
      .array(limitSchema)
      .min(1)
      .default([{ limit: 50, window: "second" }]),
    /** Token bucket capacity (defaults to the limit). */
    burst: z.number().int().positive().optional(),
    /** Offered load as a multiple of the tightest limit's rate. */
    load: z.number().nonnegative().default(5),
    traffic: trafficSchema.prefault({}),
    costs: z
      .array(costSchema)
      .min(1)
      .default([{ cost: 1, weight: 1 }]),
    settle: settleSchema.optional(),
    wait: waitSchema.optional(),
    limiter: limiterSchema.prefault({}),
    store: storeSchema.prefault({}),
    concurrency: concurrencySchema.optional(),
    faults: z.array(faultSchema).default([]),
    /**
     * steps: the reference model (@resil/limit docs/protocol.md#s6), a sync round on every replica every syncEveryMs, the
     * background loop not started; loop: each replica runs its own background loop on the virtual clock.
     */
    driver: z.enum(["steps", "loop"]).default("steps"),
    /** A window is over only above its bound plus this: units, or a percentage of the limit ("1%"). */
    tolerance: z
      .union([
        z.number().nonnegative(),
        z.string().regex(/^\d+(\.\d+)?%$/, 'expected units (a number) or a percentage of the limit ("1%")'),
      ])
      .default(0),
    /** steps driver: how often (ms) the simulation runs a sync round on every replica. */
    syncEveryMs: z.number().int().min(1).max(1000).default(1),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.limits.forEach((l, i) => {
      if (seen.has(l.window))
        ctx.addIssue({
          code: "custom",
          path: ["limits", i, "window"],
          message: `duplicate window ${l.window}`,
        });
      seen.add(l.window);
    });
    let replicas = s.replicas;
    s.faults.forEach((f, i) => {
      if (f.type === "outage" || f.type === "slow") {
        if (f.to <= f.from)
          ctx.addIssue({ code: "custom", path: ["faults", i, "to"], message: "must be after from" });
        if (f.from >= s.duration)
          ctx.addIssue({
            code: "custom",
            path: ["faults", i, "from"],
            message: "must be before the end of the run",
          });
      } else {
        if (f.at >= s.duration)
          ctx.addIssue({
            code: "custom",
            path: ["faults", i, "at"],
            message: "must be before the end of the run",
          });
        if (f.type === "join") replicas++;
        else if (f.replica >= replicas)
          ctx.addIssue({
            code: "custom",
            path: ["faults", i, "replica"],
            message: `no replica ${f.replica} (replicas are 0..${replicas - 1})`,
          });
      }
    });
  });

/** A validated scenario with every default filled in. */
export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Fault = Scenario["faults"][number];
export type LimitSpec = Scenario["limits"][number];

/** One validation problem: the dotted field path and what is wrong. */
export interface ScenarioIssue {
  path: (string | number)[];
  field: string;
  message: string;
}

/** Validates a raw scenario; returns the issues instead of throwing (files add line numbers). */
export function checkScenario(
  raw: unknown,
): { ok: true; scenario: Scenario } | { ok: false; issues: ScenarioIssue[] } {
  const result = scenarioSchema.safeParse(raw);
  if (result.success) return { ok: true, scenario: result.data };
  const issues = result.error.issues.map((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    // An unknown key is reported at the key itself, so the message and the line point at it.
    if (issue.code === "unrecognized_keys" && issue.keys.length > 0) {
      const full = [...path, issue.keys[0]!];
      return { path: full, field: fieldName(full), message: `unknown field (${issue.keys.join(", ")})` };
    }
    return { path, field: fieldName(path), message: issue.message };
  });
  return { ok: false, issues };
}

/** Validates a raw scenario, throwing a ScenarioError naming the first bad field. */
export function parseScenario(raw: unknown): Scenario {
  const checked = checkScenario(raw);
  if (checked.ok) return checked.scenario;
  const first = checked.issues[0]!;
  throw new ScenarioError(`${first.field || "scenario"}: ${first.message}`, first.field);
}

/** `faults[2].at` style name of a path. */
export function fieldName(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** The tightest rate among the limits, in units per ms (load multiplies this). */
export function limitRatePerMs(s: Scenario): number {
  return Math.min(...s.limits.map((l) => l.limit / WINDOW_MS[l.window]));
}

/** The shortest configured window: the table's rows. */
export function primaryLimit(s: Scenario): LimitSpec {
  return s.limits.reduce((a, b) => (WINDOW_MS[b.window] < WINDOW_MS[a.window] ? b : a));
}

/** Most units the checker accepts in one aligned window (token bucket: a full bucket plus a window of refill). */
export function windowBound(s: Scenario, l: LimitSpec): number {
  return s.algorithm === "token" ? l.limit + (s.burst ?? l.limit) : l.limit;
}

/** The units a window of this limit may go over its bound before it counts as over. */
export function toleranceUnits(s: Scenario, l: LimitSpec): number {
  const t = s.tolerance;
  return typeof t === "number" ? t : (l.limit * Number(t.slice(0, -1))) / 100;
}
