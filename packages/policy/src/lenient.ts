import { MAX_FALLBACKS, type Policy } from "./config.js";
import { errorText, MaxConcurrentSchema, RateLimitsSchema, RetryConfigSchema } from "./schema.js";
import { show } from "./show.js";

/** The policy read from a record, and one warning per dropped block or entry. */
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
  const warnings: string[] = [];
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { policy, warnings };
  const record = json as Record<string, unknown>;
  const get = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);

  const rateLimits = get("rate_limits");
  if (rateLimits != null) {
    const r = RateLimitsSchema.safeParse(rateLimits);
    if (r.success) policy.rateLimits = r.data;
    else warnings.push(`rate_limits ignored: ${errorText(r.error)}`);
  }

  const maxConcurrent = get("max_concurrent");
  if (maxConcurrent != null) {
    const r = MaxConcurrentSchema.safeParse(maxConcurrent);
    if (r.success) policy.maxConcurrent = r.data;
    else warnings.push(`max_concurrent ignored: ${show(maxConcurrent)} is not a positive integer`);
  }

  const retryConfig = get("retry_config");
  if (retryConfig != null) {
    const r = RetryConfigSchema.safeParse(retryConfig);
    if (r.success) policy.retryConfig = r.data;
    else warnings.push(`retry_config ignored: ${errorText(r.error)}`);
  }

  const fallbacks = get("fallback_models");
  if (fallbacks != null) {
    if (!Array.isArray(fallbacks)) {
      warnings.push(`fallback_models ignored: ${show(fallbacks)} is not a list`);
    } else {
      for (const item of fallbacks) {
        if (typeof item !== "string" || item.length === 0) {
          warnings.push(`fallback_models entry ignored: ${show(item)}`);
        } else if (policy.fallbackModels.length < MAX_FALLBACKS) {
          policy.fallbackModels.push(item);
        } else {
          warnings.push(`fallback_models truncated to ${MAX_FALLBACKS} entries`);
          break;
        }
      }
    }
  }
  return { policy, warnings };
}
