import { columns, int, num, pct } from "./format.js";
import type { KeysRun } from "./keys-run.js";
import { popularityName } from "./popularity.js";

/** The keys run as JSON-ready numbers (no scenario echo beyond what identifies the run). */
export function keysReport(r: KeysRun) {
  const held = r.windows.every((w) => w.over === 0);
  return {
    name: r.scenario.name,
    replicas: r.scenario.replicas,
    duration: r.scenario.duration,
    keys: r.keys.count,
    popularity: popularityName(r.keys.popularity),
    topShare: r.topShare,
    requests: r.requests,
    admitted: r.admitted,
    denied: r.denied,
    decidedLocally: r.decidedLocally,
    subjectsSeen: r.subjectsSeen,
    subjectsHeldMax: r.subjectsHeldMax,
    subjectsHeldEnd: r.subjectsHeldEnd,
    storeCallsPerS: r.storeCallsPerS,
    keySyncsPerS: r.keySyncsPerS,
    windows: r.windows,
    limitHeld: held,
  };
}

export type KeysReport = ReturnType<typeof keysReport>;

/** The keys run as text: traffic, store work, and every limit's per-subject windows. */
export function renderKeys(r: KeysReport): string {
  const share = (n: number) => (r.requests === 0 ? "-" : pct(n / r.requests));
  const lines = [
    `${r.name}: ${r.keys} subjects (${r.popularity}, the most popular gets ${pct(r.topShare)}), ${r.replicas} replicas, ${r.duration} s`,
    "",
    ...columns([
      ["requests", "admitted", "denied", "decided locally", "subjects used", "held (max, all replicas)"],
      [
        int(r.requests),
        share(r.admitted),
        share(r.denied),
        share(r.decidedLocally),
        int(r.subjectsSeen),
        `${int(r.subjectsHeldMax)} (end ${int(r.subjectsHeldEnd)})`,
      ],
    ]),
    "",
    `store calls: ${num(r.storeCallsPerS)} a second; key-syncs: ${num(r.keySyncsPerS)} a second (${
      r.storeCallsPerS > 0 ? num(r.keySyncsPerS / r.storeCallsPerS) : "0"
    } keys a call)`,
    "",
    ...columns([
      ["limit", "subject-windows used", "over", "worst admits", "worst excess"],
      ...r.windows.map((w) => [
        `${w.limit}/${w.window}`,
        int(w.used),
        int(w.over),
        int(w.worst),
        int(w.worstExcess),
      ]),
    ]),
    "",
    r.limitHeld
      ? "every subject held its limit in every window"
      : "SOME SUBJECT WENT OVER ITS LIMIT (see the over column)",
    "",
  ];
  return lines.join("\n");
}
