import { readFileSync } from "node:fs";
import { isMap, isSeq, LineCounter, type Node, parseDocument, stringify } from "yaml";
import { ScenarioError } from "./errors.js";
import { checkScenario, type Scenario } from "./scenario.js";

/**
 * Reads a scenario file (YAML, or JSON, which YAML parses too) WITHOUT validating it, so command-line
 * flags can be merged over it first. Syntax errors throw a ScenarioError with the line; `name` is how
 * messages call the file (the path as the user gave it).
 */
export function readScenarioFile(path: string, name = path): ScenarioSource {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ScenarioError(`${name}: cannot read the scenario file (${(err as Error).message})`, "scenario");
  }
  return parseScenarioText(text, name);
}

/** A parsed scenario document: its plain value, and where each field sits (for error lines). */
export interface ScenarioSource {
  name: string;
  value: Record<string, unknown>;
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

export function parseScenarioText(text: string, name = "scenario"): ScenarioSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line;
    throw new ScenarioError(`${name}:${line}: ${syntax.message.split("\n")[0]}`, "scenario", line);
  }
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new ScenarioError(`${name}:1: a scenario file must hold a mapping of fields`, "scenario", 1);
  return {
    name,
    value: value as Record<string, unknown>,
    lineOf(path) {
      // The deepest node that exists on the path: a missing field is reported at its parent.
      let node: unknown = doc.contents;
      let found: Node | undefined = doc.contents ?? undefined;
      for (const key of path) {
        if (isMap(node)) {
          const pair = node.items.find(
            (p) => String((p.key as { value?: unknown })?.value ?? p.key) === String(key),
          );
          if (!pair) break;
          found = (pair.key as Node) ?? found;
          node = pair.value;
        } else if (isSeq(node) && typeof key === "number") {
          node = node.items[key];
          if (!node) break;
          found = node as Node;
        } else break;
      }
      const offset = found?.range?.[0];
      return offset === undefined ? undefined : lines.linePos(offset).line;
    },
  };
}

/**
 * Validates a raw scenario; when the source file is given, the first bad field's error carries its
 * line (`file:LINE: field: message`).
 */
export function validateScenario(raw: unknown, source?: ScenarioSource): Scenario {
  const checked = checkScenario(raw);
  if (checked.ok) return checked.scenario;
  const first = checked.issues[0]!;
  const line = source?.lineOf(first.path);
  const where = source ? `${source.name}${line !== undefined ? `:${line}` : ""}: ` : "";
  throw new ScenarioError(`${where}${first.field || "scenario"}: ${first.message}`, first.field, line);
}

/** Loads and validates a scenario file in one step. */
export function loadScenarioFile(path: string): Scenario {
  const source = readScenarioFile(path);
  return validateScenario(source.value, source);
}

/** The scenario as YAML (every default spelled out), loadable again with loadScenarioFile. */
export function scenarioToYaml(s: Scenario): string {
  return stringify(dropUndefined(s), { lineWidth: 0 });
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, dropUndefined(x)]),
    );
  return v;
}
