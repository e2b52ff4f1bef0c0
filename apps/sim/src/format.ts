/** Number formatting shared by the text outputs (fixed, locale-free, so output is byte-identical). */

export function int(n: number): string {
  return Math.round(n).toString();
}

export function pct(fraction: number, digits = 1): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function num(n: number, digits = 1): string {
  return Number.isInteger(n) ? n.toString() : n.toFixed(digits);
}

export function padLeft(s: string, width: number): string {
  return s.length >= width ? s : " ".repeat(width - s.length) + s;
}

export function padRight(s: string, width: number): string {
  return s.length >= width ? s : s + " ".repeat(width - s.length);
}

/** Lays out rows of cells as right-aligned columns separated by two spaces. */
export function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
  return rows.map((r) => r.map((c, i) => padLeft(c, widths[i]!)).join("  "));
}
