/** Axis ticks at round values: a step of 1, 2 or 5 x 10^k, from 0 to the first step at or above `max`. */
export interface NiceScale {
  step: number;
  top: number;
  ticks: number[];
}

/** About `count` (at most count + 1) round steps covering 0..max (max <= 0 gives a scale 0..1). */
export function niceScale(max: number, count = 5): NiceScale {
  const span = max > 0 && Number.isFinite(max) ? max : 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  // The finest round step that needs at most one tick more than asked for.
  const steps = (n: number) => Math.max(1, Math.ceil(span / n - 1e-9));
  const step = [1, 2, 5].map((m) => m * power).find((s) => steps(s) <= count + 1) ?? 10 * power;
  const n = steps(step);
  const ticks = Array.from({ length: n + 1 }, (_, i) => round(i * step, step));
  return { step, top: ticks[n]!, ticks };
}

/** A tick value without floating-point noise (0.30000000000000004 -> 0.3). */
function round(v: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return Number(v.toFixed(decimals));
}

/** A tick label: as many decimals as the step needs. */
export function tickLabel(v: number, step: number): string {
  return v.toFixed(Math.max(0, -Math.floor(Math.log10(step))));
}
