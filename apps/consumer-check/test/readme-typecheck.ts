// Type-checks every ```ts block of each package's README, as shipped in its tarball, against the installed
// tarballs: each block is one module of its own, as a user pastes it into a fresh project.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Consumer } from "./consumer.js";
import { importedPackages, type ReadmeBlock, readmeBlocks } from "./readme-blocks.js";
import { type PublicPackage, REPO } from "./workspaces.js";

interface Manifest {
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Third-party packages the README examples import, at the version the monorepo tests them with. */
export function readmeDependencies(packages: PublicPackage[]): Record<string, string> {
  const ours = new Set(packages.map((p) => p.name));
  const manifests = packages.map(
    (p) => JSON.parse(readFileSync(join(p.dir, "package.json"), "utf8")) as Manifest,
  );
  const versionOf = (name: string) =>
    manifests.map((m) => m.devDependencies?.[name] ?? m.peerDependencies?.[name]).find((v) => v);
  const out: Record<string, string> = {};
  for (const pkg of packages) {
    for (const block of readmeBlocks(readFileSync(join(pkg.dir, "README.md"), "utf8"))) {
      for (const name of importedPackages(block.code)) {
        if (ours.has(name) || name in out) continue;
        const version = versionOf(name);
        if (version === undefined) {
          throw new Error(
            `${pkg.name} README line ${block.line} imports ${name}: neither a public package nor a dependency of one`,
          );
        }
        out[name] = version;
        const types = versionOf(`@types/${name}`);
        if (types !== undefined) out[`@types/${name}`] = types;
      }
    }
  }
  return out;
}

/** The type errors of each package's README blocks, keyed by package name, as `README.md:<line>: <error>`. */
export function typecheckReadmes(consumer: Consumer, packages: PublicPackage[]): Map<string, string[]> {
  const dir = join(consumer.dir, "readme");
  mkdirSync(dir, { recursive: true });
  const blocks = new Map<string, { pkg: string; block: ReadmeBlock }>();
  const errors = new Map<string, string[]>(packages.map((p) => [p.name, []]));
  for (const pkg of packages) {
    const shipped = join(consumer.dir, "node_modules", pkg.name, "README.md");
    readmeBlocks(readFileSync(shipped, "utf8")).forEach((block, i) => {
      const file = `readme/${pkg.name.slice(1).replace("/", "-")}-${i + 1}.mts`;
      writeFileSync(join(consumer.dir, file), block.code);
      blocks.set(file, { pkg: pkg.name, block });
    });
  }
  writeFileSync(
    join(consumer.dir, "tsconfig.readme.json"),
    JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "ES2022",
        strict: true,
        noEmit: true,
        skipLibCheck: true, // the shipped .d.ts are checked in full by the consumer type-checks
        types: ["node"],
        typeRoots: [join(REPO, "node_modules", "@types")],
      },
      files: [...blocks.keys()],
    }),
  );
  const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
  let output = "";
  try {
    consumer.run("node", [tsc, "-p", "tsconfig.readme.json", "--pretty", "false"]);
  } catch (err) {
    output = (err as Error).message;
  }
  for (const m of output.matchAll(/^(readme\/[^(\s]+\.mts)\((\d+),(\d+)\): (error .*)$/gm)) {
    const at = blocks.get(m[1] ?? "");
    if (at === undefined) continue;
    const line = at.block.line + Number(m[2]) - 1;
    errors.get(at.pkg)?.push(`README.md:${line} (${at.block.heading}): ${m[4]}`);
  }
  const counted = [...errors.values()].reduce((n, e) => n + e.length, 0);
  if (output !== "" && counted === 0) throw new Error(`tsc failed on the README blocks:\n${output}`);
  return errors;
}
