import type { MetricFamily } from "./model.js";

const UNIT_SUFFIX: Readonly<Record<string, string>> = {
  s: "seconds",
  ms: "milliseconds",
  By: "bytes",
  "1": "ratio",
};

/** The Prometheus name of a family: dots to underscores, the unit as a suffix, `_total` on counters. */
export function prometheusName(family: Pick<MetricFamily, "name" | "unit" | "kind">): string {
  let name = family.name.replace(/[^a-zA-Z0-9_:]/g, "_");
  const suffix = UNIT_SUFFIX[family.unit];
  if (suffix && !name.endsWith(`_${suffix}`)) name += `_${suffix}`;
  if (family.kind === "counter" && !name.endsWith("_total")) name += "_total";
  return name;
}

/** A label name Prometheus accepts: dots and other characters to underscores. */
export function prometheusLabel(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(clean) ? `_${clean}` : clean;
}
