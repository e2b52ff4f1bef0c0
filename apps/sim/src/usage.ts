import { FLAG_TABLE, type FlagGroup, type FlagSpec, helpDefault, SWEEP_PARAMS } from "./flags.js";
import { parseScenario } from "./scenario.js";

const HEADER = `resil-sim: N replicas of @resil/limit's Limiter against its MemoryStore on a virtual clock

usage: resil-sim [run] [flags]          one scenario: table, summary, chart
       resil-sim sweep --vary P (--values a,b,c | --range from..to[:step]) [flags]
`;

const GROUP_TITLES: Record<FlagGroup, string> = {
  scenario: "scenario (defaults in brackets)",
  limiter: "limiter options (defaults are the library's)",
  store: "store and faults (times in simulated seconds; repeat a fault flag for more)",
  output: "output",
  sweep: "sweep",
  general: "",
};

const FOOTER = `exit codes: 0 ok, 1 --check found a window over the limit (+ tolerance),
            2 bad arguments or scenario, 3 internal error
`;

const WIDTH = 100;
const DESCRIPTION_AT = 29;

/** The `--help` text, built from the flag table (so it lists exactly the flags the parser knows). */
export function usage(): string {
  const defaults = parseScenario({});
  const lines: string[] = [];
  for (const group of Object.keys(GROUP_TITLES) as FlagGroup[]) {
    if (GROUP_TITLES[group]) lines.push(GROUP_TITLES[group]);
    for (const f of FLAG_TABLE.filter((x) => x.group === group))
      lines.push(...flagLines(f, helpDefault(f, defaults)));
    if (group === "sweep")
      lines.push(
        ...wrap(`P: ${Object.keys(SWEEP_PARAMS).join(", ")}`, WIDTH - DESCRIPTION_AT, DESCRIPTION_AT),
      );
  }
  return `${HEADER}\n${lines.join("\n")}\n\n${FOOTER}`;
}

/** `  -s, --scenario FILE        description [default]`, wrapped at WIDTH columns. */
function flagLines(f: FlagSpec, fallback: string | undefined): string[] {
  const left = `  ${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.value ? ` ${f.value}` : ""}`;
  const text = fallback === undefined ? f.description : `${f.description} [${fallback}]`;
  const body = wrap(text, WIDTH - DESCRIPTION_AT, DESCRIPTION_AT);
  if (left.length < DESCRIPTION_AT - 1)
    return [left.padEnd(DESCRIPTION_AT) + body[0]!.trimStart(), ...body.slice(1)];
  return [left, ...body];
}

/** Words into lines of at most `width` characters, each indented by `indent` spaces. */
function wrap(text: string, width: number, indent: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      out.push(" ".repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(" ".repeat(indent) + line);
  return out;
}
