// A fresh project outside the monorepo with every public package installed from its packed tarball.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PublicPackage, REPO } from "./workspaces.js";

export interface Consumer {
  dir: string;
  run(file: string, args: string[], cwd?: string): string;
}

function run(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${file} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}\n${e.stderr ?? e.message}`,
    );
  }
}

/** `extra`: third-party packages installed beside the tarballs (what the READMEs' examples import). */
export function createConsumer(packages: PublicPackage[], extra: Record<string, string> = {}): Consumer {
  run("npm", ["run", "build", "--silent"], REPO);
  const root = mkdtempSync(join(tmpdir(), "resil-consumer-"));
  const tarballs = join(root, "tarballs");
  mkdirSync(tarballs);
  for (const pkg of packages) run("npm", ["pack", "--silent", "--pack-destination", tarballs], pkg.dir);
  const dir = join(root, "app");
  mkdirSync(dir);
  const dependencies: Record<string, string> = {};
  for (const file of readdirSync(tarballs)) {
    const pkg = packages.find((p) => file === `${p.name.slice(1).replace("/", "-")}-${p.version}.tgz`);
    if (pkg) dependencies[pkg.name] = `file:${join(tarballs, file)}`;
  }
  if (Object.keys(dependencies).length !== packages.length) {
    throw new Error(
      `packed ${readdirSync(tarballs).join(", ")}; expected one tarball per ${packages.length} packages`,
    );
  }
  // What a user of an optional entry point installs beside it (@resil/middleware/fastify needs fastify).
  for (const pkg of packages) Object.assign(dependencies, pkg.optionalPeers);
  for (const [name, version] of Object.entries(extra)) dependencies[name] ??= version;
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }, null, 2),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir);
  return { dir, run: (file, args, cwd = dir) => run(file, args, cwd) };
}
