// The README's sample output is exactly what the command it shows prints on stdout, so it cannot go
// stale when the limiter changes. The speed line after it goes to stderr and differs on every run.
import { readFileSync, writeFileSync } from "node:fs";
import { expect, it } from "vitest";
import { limiterBackend } from "../src/limiter-backend.js";
import { EXIT, main } from "../src/main.js";
import { memoryIo } from "./helpers/io.js";

const README = new URL("../README.md", import.meta.url);
const PROMPT = "$ npm run -s sim -- ";

interface Sample {
  args: string[];
  /** Index of the first output line, and of the line after the last (the speed line). */
  from: number;
  to: number;
  stdout: string;
}

function sample(lines: string[]): Sample {
  const at = lines.findIndex((l) => l.startsWith(PROMPT));
  if (at < 0 || lines[at - 1] !== "```")
    throw new Error(`README.md has no \`\`\` block starting with "${PROMPT}"`);
  const to = lines.findIndex((l, i) => i > at && (l.startsWith("speed: ") || l === "```"));
  if (to < 0 || !lines[to]?.startsWith("speed: "))
    throw new Error("the sample output does not end with its speed line");
  const args = (lines[at] ?? "").slice(PROMPT.length).trim().split(/\s+/);
  return { args, from: at + 1, to, stdout: `${lines.slice(at + 1, to).join("\n")}\n` };
}

const REGENERATE = [
  "The README's sample output is stale (the simulator or the limiter changed what it prints).",
  "Regenerate it: RESIL_UPDATE_README=1 npx vitest run --project @resil/sim readme-output",
  "(or paste the stdout of `npm run -s sim -- <the flags shown> 2>/dev/null`, run from the repo root,",
  "between the `$ npm run` line and the `speed:` line of apps/sim/README.md), then review the diff.",
].join("\n");

it("the README's sample run prints exactly what the README shows", async () => {
  const readme = readFileSync(README, "utf8");
  const lines = readme.split("\n");
  const shown = sample(lines);
  expect(shown.args).toContain("--duration");
  const io = memoryIo();
  const code = await main(shown.args, io, limiterBackend);
  expect(code, io.err).toBe(EXIT.ok);
  expect(io.out).toMatch(/^scenario: /m);
  expect(io.err).toMatch(/^speed: /m);
  if (process.env.RESIL_UPDATE_README === "1" && io.out !== shown.stdout) {
    lines.splice(shown.from, shown.to - shown.from, ...io.out.replace(/\n$/, "").split("\n"));
    writeFileSync(README, lines.join("\n"));
  } else {
    expect(io.out, REGENERATE).toBe(shown.stdout);
  }
}, 60_000);
