// What `npm pack` puts in each public package's tarball: what a published package must ship, and nothing
// of the workspace's own (tests, configs, build caches).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { publicPackages, REPO } from "./workspaces.js";

const packages = publicPackages();
const listed = new Map<string, string[]>();

beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO, stdio: "ignore" });
  for (const pkg of packages) {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--silent"], {
      cwd: pkg.dir,
      encoding: "utf8",
    });
    const [packed] = JSON.parse(out) as { files: { path: string }[] }[];
    listed.set(pkg.name, (packed?.files ?? []).map((f) => f.path).sort());
  }
});

/** Every file named by `main`, `types`, `bin` and the `exports` conditions, as paths in the tarball. */
function entryFiles(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === "string") found.add(value.replace(/^\.\//, ""));
    else if (value !== null && typeof value === "object") for (const v of Object.values(value)) visit(v);
  };
  visit(manifest.main);
  visit(manifest.types);
  visit(manifest.bin);
  visit(manifest.exports);
  return [...found].filter((f) => !f.includes("*")).sort();
}

/** Paths that belong to the workspace, not to a user: tests, fixtures, configs, caches. */
const JUNK =
  /(^|\/)(test|tests|__tests__|fixtures|node_modules|coverage|\.turbo)\/|\.test\.|\.spec\.|\.tsbuildinfo$|(^|\/)tsconfig[^/]*\.json$|(^|\/)vitest\.config|(^|\/)\.readme-example-|\.tgz$/;

describe.each(packages.map((p) => [p.name, p] as const))("the tarball of %s", (name, pkg) => {
  const files = () => listed.get(name) ?? [];

  it("ships LICENSE, README.md and package.json", () => {
    expect(files()).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
  });

  it("ships the LICENSE of the repository, unchanged", () => {
    expect(readFileSync(join(pkg.dir, "LICENSE"), "utf8")).toBe(readFileSync(join(REPO, "LICENSE"), "utf8"));
  });

  it("ships every file its exports, main, types and bin name, .d.ts included", () => {
    const entries = entryFiles(pkg.dir);
    expect(entries.some((f) => f.endsWith(".d.ts"))).toBe(true);
    expect(entries.filter((f) => !files().includes(f))).toEqual([]);
  });

  it("ships the .d.ts beside each .js entry point", () => {
    const js = entryFiles(pkg.dir).filter((f) => f.startsWith("dist/") && f.endsWith(".js"));
    expect(js.map((f) => f.replace(/\.js$/, ".d.ts")).filter((f) => !files().includes(f))).toEqual([]);
  });

  it("ships no tests, configs or build caches", () => {
    expect(files().filter((f) => JUNK.test(f))).toEqual([]);
  });

  it("ships only sources that were built, and only builds of shipped sources", () => {
    const src = files().filter((f) => /^src\/.*\.ts$/.test(f) && !f.endsWith(".d.ts"));
    const dist = files().filter((f) => /^dist\/.*\.js$/.test(f));
    const built = (f: string) => f.replace(/^src\//, "dist/").replace(/\.ts$/, ".js");
    const source = (f: string) => f.replace(/^dist\//, "src/").replace(/\.js$/, ".ts");
    expect(
      src.filter((f) => !dist.includes(built(f))),
      "sources with no build: not compiled",
    ).toEqual([]);
    expect(
      dist.filter((f) => !src.includes(source(f))),
      "builds with no source: stale output, run `rm -rf dist && npm run build` in the package",
    ).toEqual([]);
  });
});
