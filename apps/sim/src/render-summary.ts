import { int, num, padRight, pct } from "./format.js";
import type { Report, Summary } from "./report.js";

/** The summary block under the table. */
export function renderSummary(report: Report): string {
  const s = report.summary;
  const sc = report.scenario;
  const limits = sc.limits.map((l) => `${l.limit}/${l.window}`).join(" + ");
  const lines: Array<[string, string]> = [
    [
      "scenario",
      `${sc.name}: ${sc.replicas} replicas, ${sc.algorithm} ${limits}, load ${num(sc.load, 2)}x, ${num(sc.duration)} s, seed ${sc.seed}`,
    ],
    [
      "utilisation",
      `${pct(s.utilisation)} of what the limit allowed (${int(s.admitted)} admitted of ${int(s.offered)} offered)`,
    ],
    [
      "max over-admission",
      s.maxOverAdmission.units > 0
        ? `+${int(s.maxOverAdmission.units)} (${pct(s.maxOverAdmission.fraction)}, ${s.maxOverAdmission.window})`
        : "0",
    ],
    ["windows over limit", windowsLine(report)],
    ["limiter options", tuningLine(s)],
    ["starved replicas", `${s.starvedReplicas} of ${report.pods.length}`],
    ["denies", `${int(s.deniedRequests)} requests (${int(s.denied)} units)`],
    ["store calls/s", `${num(s.storeCallsPerSecond)} (${s.storeFailures} failed)`],
    ["overruns", int(s.overruns)],
    ["fail-static admits", int(s.failStaticAdmits)],
    ["paid back", `${int(s.paidBack)} units pushed after recovery`],
    ["outcomes", outcomeLine(s)],
  ];
  if (s.costClasses.length > 1) lines.push(["cost classes", costClassLine(s)]);
  if (sc.settle)
    lines.push([
      "settled",
      `x${num(sc.settle.min, 2)}..${num(sc.settle.max, 2)} after ${num(sc.settle.afterMs)} ms; ${int(s.settledExtra)} units charged after admission (a window may exceed its limit by what was charged in it)`,
    ]);
  if (s.waits)
    lines.push([
      "waits",
      `${int(s.waits.admitted)} requests admitted after waiting (longest ${num(s.waits.longestMs)} ms of ${num(s.waits.maxWaitMs)}), ${int(s.waits.timedOut)} timed out (the denies)`,
    ]);
  if (s.concurrency)
    lines.push([
      "concurrency",
      `max ${s.concurrency.max}, most held ${s.concurrency.maxActive}, slot denials ${s.concurrency.slotDenials}`,
    ]);
  for (const c of s.crashes) {
    const back =
      c.leakedSlots === 0
        ? "no slots leaked"
        : c.slotsReturnedAfterMs === undefined
          ? `${c.leakedSlots} slots leaked, not seen back`
          : `${c.leakedSlots} slots leaked, back after ${num(c.slotsReturnedAfterMs / 1000, 2)} s`;
    lines.push([`crash pod-${c.replica}`, `at ${num(c.atMs / 1000, 2)} s: ${back}`]);
  }
  const width = Math.max(...lines.map(([k]) => k.length)) + 1;
  return `${lines.map(([k, v]) => `${padRight(`${k}:`, width)} ${v}`).join("\n")}\n`;
}

/** `cost 1: 52.6% of offered units, 55.1% of admitted (31.0% admitted)` per class. */
function costClassLine(s: Summary): string {
  return s.costClasses
    .map(
      (c) =>
        `cost ${c.cost}: ${pct(c.offeredShare)} of offered, ${pct(c.admittedShare)} of admitted (${pct(c.admittedRatio)} of its units)`,
    )
    .join("; ");
}

function outcomeLine(s: Summary): string {
  return Object.entries(s.outcomes)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
}

/** `0 of 60 (limit held; tolerance 1% = 10 units, 2 windows within it)`. */
function windowsLine(report: Report): string {
  const s = report.summary;
  const notes: string[] = [];
  if (s.limitHeld) notes.push("limit held");
  const t = report.scenario.tolerance;
  if (t !== 0) {
    const given = typeof t === "number" ? `${num(t, 2)} units` : `${t} = ${num(s.toleranceUnits, 2)} units`;
    notes.push(`tolerance ${given}, ${s.windowsWithinTolerance} within it`);
  } else notes.push("tolerance 0");
  return `${s.windowsOver} of ${s.windowsChecked} (${notes.join("; ")})`;
}

/** The options that differ from the library's defaults, each beside the library's value. */
function tuningLine(s: Summary): string {
  if (s.tuningOverrides.length === 0) return "the library's defaults";
  return s.tuningOverrides.map((o) => `${o.option} ${o.value} (library ${o.library})`).join(", ");
}
