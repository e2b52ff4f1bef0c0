import { type HeadersInput, readableHeader } from "./headers.js";
import { parseFloatStrict, parseUnsignedStrict } from "./numbers.js";
import { RETRY_AFTER_CAP_MS } from "./retry-after.js";
import { parseRfc3339Ms } from "./rfc3339.js";

/** What an upstream's own rate-limit headers count. */
export type BudgetResource = "requests" | "tokens" | "input_tokens" | "output_tokens";

/** One budget an upstream reported about itself: what is left and when it refills. */
export interface UpstreamBudget {
  resource: BudgetResource;
  /** Which header family it came from. */
  source: "openai" | "anthropic";
  limit?: number;
  remaining?: number;
  /** Milliseconds until the budget is back to `limit` (capped at one hour). */
  resetInMs?: number;
}

// OpenAI's reset durations: "20ms", "1s", "6m0s", "1h2m3.5s" (Go's time.Duration text, non-negative).
const DURATION =
  /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/** A Go-style duration (`6m0s`, `20ms`) in milliseconds, or undefined. */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m || text.trim() === "") return undefined;
  const [h, min, s, ms] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const total = h! * 3_600_000 + min! * 60_000 + s! * 1_000 + ms!;
  return Number.isFinite(total) ? total : undefined;
}

function count(headers: HeadersInput, name: string): number | undefined {
  const text = readableHeader(headers, name)?.trim();
  if (text === undefined) return undefined;
  const n = parseUnsignedStrict(text);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

const capped = (ms: number | undefined) =>
  ms === undefined ? undefined : Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);

function openaiReset(headers: HeadersInput, name: string): number | undefined {
  const text = readableHeader(headers, name)?.trim();
  if (text === undefined) return undefined;
  const seconds = parseFloatStrict(text);
  if (seconds !== undefined) return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
  return parseDurationMs(text);
}

function anthropicReset(headers: HeadersInput, name: string, nowMs: number): number | undefined {
  const text = readableHeader(headers, name)?.trim();
  const at = text === undefined ? undefined : parseRfc3339Ms(text);
  return at === undefined ? undefined : at - nowMs;
}

function budget(b: UpstreamBudget): UpstreamBudget | undefined {
  if (b.limit === undefined && b.remaining === undefined && b.resetInMs === undefined) return undefined;
  const out: UpstreamBudget = { resource: b.resource, source: b.source };
  if (b.limit !== undefined) out.limit = b.limit;
  if (b.remaining !== undefined) out.remaining = b.remaining;
  if (b.resetInMs !== undefined) out.resetInMs = b.resetInMs;
  return out;
}

/**
 * The budgets an upstream reported in its response headers: OpenAI's `x-ratelimit-{limit,remaining,reset}-
 * {requests,tokens}` and Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-
 * {limit,remaining,reset}`. A value that does not parse is left out; never throws on header values.
 */
export function upstreamBudgets(headers: HeadersInput, nowMs: number = Date.now()): UpstreamBudget[] {
  if (!Number.isFinite(nowMs)) throw new RangeError(`upstreamBudgets: nowMs must be finite, got ${nowMs}`);
  const found: Array<UpstreamBudget | undefined> = [];
  for (const resource of ["requests", "tokens"] as const) {
    found.push(
      budget({
        resource,
        source: "openai",
        limit: count(headers, `x-ratelimit-limit-${resource}`),
        remaining: count(headers, `x-ratelimit-remaining-${resource}`),
        resetInMs: capped(openaiReset(headers, `x-ratelimit-reset-${resource}`)),
      }),
    );
  }
  for (const resource of ["requests", "tokens", "input_tokens", "output_tokens"] as const) {
    const name = `anthropic-ratelimit-${resource.replace("_", "-")}`;
    found.push(
      budget({
        resource,
        source: "anthropic",
        limit: count(headers, `${name}-limit`),
        remaining: count(headers, `${name}-remaining`),
        resetInMs: capped(anthropicReset(headers, `${name}-reset`, nowMs)),
      }),
    );
  }
  return found.filter((b): b is UpstreamBudget => b !== undefined);
}
