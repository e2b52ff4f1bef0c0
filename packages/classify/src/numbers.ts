// Strict number grammars. JS `Number()` reads "" and "  " as 0, "0x10" as 16 and "1_0" as NaN
// depending on the engine's literal rules; these accept exactly the grammar of Rust's `str::parse`.

const FLOAT = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
const UNSIGNED = /^\+?\d+$/;
const SIGNED = /^[+-]?\d+$/;

/**
 * A float in the strict grammar: optional sign, then digits with an optional fraction (`1`, `1.`,
 * `.5`, `1.5`) and an optional exponent (`1e3`, `2E-2`), or `inf` / `infinity` / `nan` (any case).
 * No surrounding whitespace, no hex, no `_`, not empty. Returns undefined when it does not match.
 */
export function parseFloatStrict(s: string): number | undefined {
  if (!FLOAT.test(s)) return undefined;
  const body = s.replace(/^[+-]/, "").toLowerCase();
  const negative = s.startsWith("-");
  if (body === "nan") return Number.NaN;
  if (body === "inf" || body === "infinity") return negative ? -Infinity : Infinity;
  // The grammar above is a subset of what Number() reads exactly, so this is now safe.
  return Number(s);
}

/** An unsigned decimal integer (optional `+`, digits only), or undefined. */
export function parseUnsignedStrict(s: string): number | undefined {
  return UNSIGNED.test(s) ? Number(s) : undefined;
}

/** A signed decimal integer in the i64 range (optional sign, digits only), or undefined. */
export function parseI64Strict(s: string): number | undefined {
  if (!SIGNED.test(s)) return undefined;
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) return undefined;
  return Number(big);
}

/** A `u64` header value (`current-concurrent-requests`): trimmed, unsigned, at most 2^64 - 1. */
export function parseU64(s: string): bigint | undefined {
  const t = s.trim();
  if (!UNSIGNED.test(t)) return undefined;
  const big = BigInt(t);
  return big <= 18446744073709551615n ? big : undefined;
}
