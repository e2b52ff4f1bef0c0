/** What the store hands out of a free budget: credit to keep (`granted`) and last-mile admits (`direct`). */
export interface Grant {
  granted: number;
  direct: number;
}

/**
 * The grant step of the rate and concurrency scripts (see docs/protocol.md#s3-5, step 5): a fair
 * share of `free` split across replicas, then waiting requests admitted one by one from what is left.
 * Extension: with requests waiting (`need` > 0), the share is at least `batch` (when that much is free).
 */
export function grantStep(
  free: number,
  want: number,
  need: number,
  allowance: number,
  replicas: number,
  batch = 0,
): Grant {
  if (!(free >= 1)) return { granted: 0, direct: 0 };
  const whole = Math.floor(free);
  const split = Math.floor((Math.min(allowance, 1) * whole) / Math.max(replicas, 1));
  const fair = need > 0 && batch > split ? Math.min(batch, whole) : split;
  const granted = Math.max(0, Math.min(want, fair));
  const left = whole - granted;
  const direct = need > granted && left >= 1 ? Math.min(need - granted, left) : 0;
  return { granted, direct };
}
