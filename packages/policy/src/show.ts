/** A value as compact JSON for a warning (`7`, `"20"`, `null`); never throws. */
export function show(v: unknown): string {
  if (typeof v === "bigint") return String(v);
  if (v === undefined) return "undefined";
  try {
    const json = JSON.stringify(v);
    if (typeof json === "string") return json;
  } catch {
    // a BigInt inside, a cycle: fall through
  }
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
