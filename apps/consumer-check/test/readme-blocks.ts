// The ```ts blocks of a README, as a user copies them: each one a module of its own.
import { builtinModules } from "node:module";

export interface ReadmeBlock {
  /** 1-based line of the block's first code line in the README. */
  line: number;
  /** The nearest heading above the block ("" before the first). */
  heading: string;
  code: string;
}

export function readmeBlocks(readme: string, lang = "ts"): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = readme.split("\n");
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? "";
    const fence = /^(`{3,})(\S*)/.exec(text);
    if (fence === null) {
      const h = /^#{1,6} (.*)$/.exec(text);
      if (h) heading = h[1] ?? "";
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1] ?? "```") && l.trim() === fence[1]);
    if (end < 0) throw new Error(`README line ${i + 1}: a code fence that is never closed`);
    if (fence[2] === lang)
      blocks.push({ line: i + 2, heading, code: `${lines.slice(i + 1, end).join("\n")}\n` });
    i = end;
  }
  return blocks;
}

/** The packages a block imports, by name: `node:` and built-in modules left out. */
export function importedPackages(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']/g)) {
    const spec = m[1] ?? "";
    if (spec.startsWith(".") || spec.startsWith("node:") || builtinModules.includes(spec)) continue;
    const parts = spec.split("/");
    names.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec));
  }
  return [...names].sort();
}
