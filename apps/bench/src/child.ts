import { writeFileSync } from "node:fs";
import { CASES } from "./registry.js";
import type { CaseResult } from "./types.js";

/** Runs one case in this process and writes its CaseResult as JSON to `resultFile`. */
export async function runChild(name: string, smoke: boolean, resultFile: string): Promise<void> {
  // A parent that gives up sends SIGTERM: exit normally so the testkit's exit hook stops our redis-server.
  process.on("SIGTERM", () => process.exit(143));
  const entry = CASES.find((c) => c.name === name);
  if (!entry) throw new Error(`unknown case ${JSON.stringify(name)}`);
  const started = performance.now();
  const bench = await entry.load();
  const rows = await bench.run({ smoke });
  const result: CaseResult = {
    case: bench.name,
    title: bench.title,
    description: bench.description,
    rows,
    durationMs: Math.round(performance.now() - started),
  };
  writeFileSync(resultFile, JSON.stringify(result));
  // A peer's lingering timers (rate-limiter-flexible keeps one per key) must not hold the process open.
  process.exit(0);
}
