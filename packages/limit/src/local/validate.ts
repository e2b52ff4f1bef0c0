/** Costs are non-negative safe integers: a negative cost would add tokens, a fractional one drift. */
export function checkCost(cost: number, where: string): void {
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new RangeError(`${where}: cost must be a non-negative safe integer, got ${String(cost)}`);
  }
}

/** True for a safe integer >= min (rejects NaN, Infinity, fractions). */
export function isIntAtLeast(value: number, min: number): boolean {
  return Number.isSafeInteger(value) && value >= min;
}

/** Rounds a wait up to whole milliseconds; a non-finite wait stays NEVER. */
export function ceilWait(ms: number): number {
  return ms > 0 ? Math.ceil(ms) : 0;
}
