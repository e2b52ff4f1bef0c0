import { MAX_FALLBACKS, type Policy } from "./config.js";
import { errorText, MaxConcurrentSchema, RateLimitsSchema, RetryConfigSchema } from "./schema.js";
import { show } from "./show.js";

/** At most this many warnings are kept; one more line counts the rest ("N more warnings"). */
export const MAX_WARNINGS = 100;

/** The policy read from a record, and one warning per dropped block or entry (at most MAX_WARNINGS + 1). */
export interface ParsedPolicy {
  policy: Policy;
  warnings: string[];
}

/**
 * Reads a target's policy from its JSON record LENIENTLY: a malformed block is dropped with a
 * warning and never takes the record or the other blocks with it. Each key is read on its own; a
 * missing key or `null` is skipped silently; other keys are ignored; a non-object gives an empty
 * policy. Never throws on any JSON value, never logs: the caller decides what to do with `warnings`.
 *
 * - `rate_limits`: parsed by `RateLimitsSchema`, else `rate_limits ignored: <reason>`.
 * - `max_concurrent`: an integer 1..4294967295, else `max_concurrent ignored: <value> is not a positive integer`.
 * - `retry_config`: parsed by `RetryConfigSchema`, else `retry_config ignored: <reason>`
 *   (`retry_config ignored: max_delay_s out of range` for a negative or overflowing delay).
 * - `fallback_models`: not a list -> `fallback_models ignored: <value> is not a list`; in a list,
 *   non-empty strings are kept in order (duplicates too) up to 5; the 6th adds
 *   `fallback_models truncated to 5 entries` and stops; any other item adds
 *   `fallback_models entry ignored: <item>` and the walk goes on.
 */
export function parsePolicy(json: unknown): ParsedPolicy {
  const policy: Policy = { fallbackModels: [] };
  const kept: string[] = [];
  let dropped = 0;
  // the text is built only for warnings that are kept: a huge list costs a count, not a string each
  const warn = (text: () => string) => {
    if (kept.length < MAX_WARNINGS) kept.push(text());
    else dropped++;
  };
  const warnings = () => (dropped > 0 ? [...kept, `${dropped} more warnings`] : kept);
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { policy, warnings: [] };
  const record = json as Record<string, unknown>;
  const get = (key: string): unknown => (Object.hasOwn(record, key) ? ownOnly(record[key]) : undefined);

  const rateLimits = get("rate_limits");
  if (rateLimits != null) {
    const r = RateLimitsSchema.safeParse(rateLimits);
    if (r.success) policy.rateLimits = r.data;
    else warn(() => `rate_limits ignored: ${errorText(r.error)}`);
  }

  const maxConcurrent = get("max_concurrent");
  if (maxConcurrent != null) {
    const r = MaxConcurrentSchema.safeParse(maxConcurrent);
    if (r.success) policy.maxConcurrent = r.data;
    else warn(() => `max_concurrent ignored: ${show(maxConcurrent)} is not a positive integer`);
  }

  const retryConfig = get("retry_config");
  if (retryConfig != null) {
    const r = RetryConfigSchema.safeParse(retryConfig);
    if (r.success) policy.retryConfig = r.data;
    else warn(() => `retry_config ignored: ${errorText(r.error)}`);
  }

  const fallbacks = get("fallback_models");
  if (fallbacks != null) {
    if (!Array.isArray(fallbacks)) {
      warn(() => `fallback_models ignored: ${show(fallbacks)} is not a list`);
    } else {
      for (const item of fallbacks) {
        if (typeof item !== "string" || item.length === 0) {
          warn(() => `fallback_models entry ignored: ${show(item)}`);
        } else if (policy.fallbackModels.length < MAX_FALLBACKS) {
          policy.fallbackModels.push(item);
        } else {
          warn(() => `fallback_models truncated to ${MAX_FALLBACKS} entries`);
          break;
        }
      }
    }
  }
  return { policy, warnings: warnings() };
}

/** A block with its own enumerable properties only, on no prototype (zod reads inherited keys otherwise). */
function ownOnly(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) out[key] = (value as Record<string, unknown>)[key];
  return out;
}
