import type { Attributes, MetricFamily } from "./model.js";
import { prometheusLabel, prometheusName } from "./prometheus-names.js";

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function labels(attributes: Attributes, extra?: readonly [string, string]): string {
  const parts = Object.entries(attributes).map(([k, v]) => `${prometheusLabel(k)}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function value(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

/** The Prometheus text exposition format (0.0.4): `# HELP` and `# TYPE` before each family's samples. */
export function formatPrometheus(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    const name = prometheusName(f);
    out.push(`# HELP ${name} ${escapeHelp(f.description)}`, `# TYPE ${name} ${f.kind}`);
    if (f.kind !== "histogram") {
      for (const p of f.points) out.push(`${name}${labels(p.attributes)} ${value(p.value)}`);
      continue;
    }
    for (const p of f.points) {
      let cumulative = 0;
      p.bounds.forEach((le, i) => {
        cumulative += p.counts[i] ?? 0;
        out.push(`${name}_bucket${labels(p.attributes, ["le", String(le)])} ${cumulative}`);
      });
      out.push(`${name}_bucket${labels(p.attributes, ["le", "+Inf"])} ${p.count}`);
      out.push(`${name}_sum${labels(p.attributes)} ${value(p.sum)}`);
      out.push(`${name}_count${labels(p.attributes)} ${p.count}`);
    }
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
