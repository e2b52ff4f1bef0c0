// Which code of resil's packages a bench process measures: the built `dist/` (what users run) unless
// the process was started with `--conditions=source` (src/ through tsx, as the smoke test does).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The node flag that makes `@resil/*` resolve to `src/` (each package's `source` export). */
export const SOURCE_CONDITION = "--conditions=source";

/** This process resolves `@resil/*` to `src/`. */
export const fromSource = process.execArgv.includes(SOURCE_CONDITION);

/** The flags a bench child needs to load the same code as this process. */
export function childFlags(): string[] {
  return fromSource
    ? [SOURCE_CONDITION, "--expose-gc", "--import", "tsx"]
    : ["--expose-gc", "--import", "tsx"];
}

/** The entry of another checkout's @resil/limit, built or source like this process. */
export function limitEntry(checkout: string): string {
  return fromSource
    ? join(checkout, "packages", "limit", "src", "index.ts")
    : join(checkout, "packages", "limit", "dist", "index.js");
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * The packages whose `dist/` is missing or older than their `src/`: measuring them would time
 * other code than the checkout's. Empty when this process runs from source.
 */
export function staleBuilds(repoRoot: string): string[] {
  if (fromSource) return [];
  const stale: string[] = [];
  const packages = join(repoRoot, "packages");
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, "src");
    if (!existsSync(src)) continue;
    const dist = join(packages, name, "dist");
    if (!existsSync(dist) || newest(dist) < newest(src)) stale.push(`packages/${name}`);
  }
  return stale;
}
