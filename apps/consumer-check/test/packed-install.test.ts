import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Consumer, createConsumer } from "./consumer.js";
import { readmeDependencies, typecheckReadmes } from "./readme-typecheck.js";
import { publicPackages, REPO } from "./workspaces.js";

const packages = publicPackages();
const specifiers = packages.flatMap((p) => p.specifiers);
const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
let consumer: Consumer;
let readmeErrors: Map<string, string[]> | undefined;

beforeAll(() => {
  consumer = createConsumer(packages, readmeDependencies(packages));
});

describe("the packed packages, installed in a fresh project", () => {
  it("publishes the workspaces a user installs, @resil/sim included", () => {
    expect(packages.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        "@resil/limit",
        "@resil/sim",
        "@resil/store-ioredis",
        "@resil/store-node-redis",
      ]),
    );
    expect(packages.map((p) => p.name)).not.toContain("@resil/testkit");
  });

  it("imports every entry point as ESM, and each exports something", () => {
    const script = `for (const s of ${JSON.stringify(specifiers)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + " exports nothing"); } console.log("ok");`;
    expect(consumer.run("node", ["--input-type=module", "-e", script]).trim()).toBe("ok");
  });

  it("requires every entry point from CommonJS on this Node (require of ESM)", () => {
    const script = `for (const s of ${JSON.stringify(specifiers)}) { const m = require(s); if (Object.keys(m).length === 0) throw new Error(s + " exports nothing"); } console.log("ok");`;
    const out = consumer.run("node", ["--no-warnings", "--input-type=commonjs", "-e", script]);
    expect(out.trim()).toBe("ok");
  });

  it.each([
    ["nodenext", "nodenext", "esm"],
    ["node16", "node16", "esm"],
    ["bundler", "esnext", "esm"],
    ["nodenext", "nodenext", "cjs"],
  ] as const)(
    "type-checks a TypeScript consumer with moduleResolution %s (module %s, %s)",
    (resolution, module, kind) => {
      const name = `${resolution}-${kind}`;
      const ext = kind === "esm" ? "mts" : "cts";
      const lines = specifiers.map((s, i) =>
        kind === "esm" ? `import * as m${i} from "${s}";` : `import m${i} = require("${s}");`,
      );
      lines.push(`export const loaded = [${specifiers.map((_, i) => `m${i}`).join(", ")}];`);
      lines.push(usage());
      writeFileSync(join(consumer.dir, `${name}.${ext}`), `${lines.join("\n")}\n`);
      writeFileSync(
        join(consumer.dir, `tsconfig.${name}.json`),
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: resolution,
            target: "ES2022",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ["node"],
            typeRoots: [join(REPO, "node_modules", "@types")],
          },
          files: [`${name}.${ext}`],
        }),
      );
      consumer.run("node", [tsc, "-p", `tsconfig.${name}.json`]);
    },
  );

  it.each(packages.map((p) => [p.name]))(
    "type-checks each ```ts block of the README %s ships, as a module of its own",
    (name) => {
      readmeErrors ??= typecheckReadmes(consumer, packages);
      const errors = readmeErrors.get(name) ?? [];
      expect(errors, "fix the README block at that line (a user pastes it into a fresh project)").toEqual([]);
    },
  );

  it("runs npx resil-sim --help from the installed @resil/sim", () => {
    const out = consumer.run("npx", ["--no-install", "resil-sim", "--help"]);
    expect(out).toMatch(/resil-sim/);
    expect(out).toMatch(/--replicas/);
  });
});

/** Typed use of the main entry points, so a wrong or missing declaration fails the check. */
function usage(): string {
  return [
    `import { Limiter, MemoryStore } from "@resil/limit";`,
    `const limiter = new Limiter({}, new MemoryStore());`,
    `limiter.setPolicy("api", { requestsPerSecond: 10 });`,
    `const decision = limiter.tryCheck("api");`,
    `export const allowed: boolean | undefined = decision === undefined ? undefined : decision.kind === "allow";`,
  ].join("\n");
}
