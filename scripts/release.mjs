// `npm run release`: lint, type-check, build, test, then pack every public workspace into release/.
// Publishing stays a separate, deliberate step: `npx changeset publish` (after `npx changeset version`).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const run = (cmd, args, cwd = ".") => execFileSync(cmd, args, { cwd, stdio: "inherit" });

run("npx", ["changeset", "status"]);
run("npm", ["run", "lint"]);
run("npm", ["run", "typecheck"]);
run("npm", ["run", "build"]);
run("npm", ["test"]);

const out = join(process.cwd(), "release");
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
for (const group of ["packages", "apps"]) {
  for (const dir of readdirSync(group).map((d) => join(group, d))) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, "utf8")).private) continue;
    run("npm", ["pack", "--silent", "--pack-destination", out], dir);
  }
}
console.log(`packed into ${out}: ${readdirSync(out).join(", ")}`);
console.log("to publish: npx changeset publish");
