// The public workspaces of the monorepo and the entry points each one exports.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dirname, "..", "..", "..");

export interface PublicPackage {
  name: string;
  version: string;
  dir: string;
  /** Import specifiers: the package name, then `name/sub` for each subpath export. */
  specifiers: string[];
  bins: string[];
  /** Optional peers (a framework, the OpenTelemetry API) at the version the package is tested with. */
  optionalPeers: Record<string, string>;
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

export function publicPackages(): PublicPackage[] {
  const found: PublicPackage[] = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(REPO, group))) {
      const dir = join(REPO, group, entry);
      let manifest: Manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
      } catch {
        continue;
      }
      if (manifest.private) continue;
      const subpaths = Object.keys(manifest.exports ?? { ".": true }).filter((k) => !k.includes("*"));
      found.push({
        name: manifest.name,
        version: manifest.version,
        dir,
        specifiers: subpaths.map((k) => (k === "." ? manifest.name : `${manifest.name}/${k.slice(2)}`)),
        bins: Object.keys(manifest.bin ?? {}),
        optionalPeers: optionalPeers(manifest),
      });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

function optionalPeers(m: Manifest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, meta] of Object.entries(m.peerDependenciesMeta ?? {})) {
    if (!meta.optional || name.startsWith("@resil/")) continue;
    const version = m.devDependencies?.[name] ?? m.peerDependencies?.[name];
    if (version !== undefined) out[name] = version;
    // its types, when they ship apart (express), as a TypeScript user of that entry point installs them
    const types = m.devDependencies?.[`@types/${name}`];
    if (types !== undefined) out[`@types/${name}`] = types;
  }
  return out;
}
