import { type HeaderOptions, type RateLimitHeaders, RETRY_AFTER, rateLimitHeaderList } from "./headers.js";

/** The OpenAI-style body of a rate-limit rejection (exact bytes). */
export const RATE_LIMITED_BODY =
  '{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":"rate_limit_exceeded"}}';

/** The OpenAI-style body of a `max_concurrent` rejection (exact bytes). */
export const CONCURRENCY_LIMITED_BODY =
  '{"error":{"message":"Too many concurrent requests for this deployment","type":"rate_limit_error","code":"concurrency_limit_exceeded"}}';

/** WebSocket close code for a session refused by a limit (RFC 6455 "Try Again Later"). */
export const WS_CLOSE_TRY_AGAIN_LATER = 1013;

export const CONTENT_TYPE_JSON = "application/json";

/** A rejection to send: status 429, headers in the order to write them, the exact body. */
export interface Rejection {
  status: 429;
  /** Lowercase names in order (a record keeps insertion order): ready for `res.writeHead`. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A rate-limit rejection: 429, `content-type: application/json`, then the headers of
 * `writeHeaders(info)` (`x-ratelimit-*`, `retry-after` when present, the IETF fields when asked),
 * and {@link RATE_LIMITED_BODY}. Throws a `RangeError` as `writeHeaders` does.
 */
export function rateLimited(info: RateLimitHeaders, options: HeaderOptions = {}): Rejection {
  const headers: Record<string, string> = { "content-type": CONTENT_TYPE_JSON };
  for (const [name, value] of rateLimitHeaderList(info, options)) headers[name] = value;
  return { status: 429, headers, body: RATE_LIMITED_BODY };
}

/**
 * A `max_concurrent` rejection: 429, `content-type: application/json`, `retry-after: max(s, 1)`
 * (a fraction rounded up), {@link CONCURRENCY_LIMITED_BODY}; no `x-ratelimit-*`. Throws a
 * `RangeError` for a non-finite `retryAfterS`.
 */
export function concurrencyLimited(retryAfterS: number): Rejection {
  if (!Number.isFinite(retryAfterS)) throw new RangeError(`retryAfterS must be finite, got ${retryAfterS}`);
  const s = Math.min(Math.max(1, Math.ceil(retryAfterS)), Number.MAX_SAFE_INTEGER);
  return {
    status: 429,
    headers: { "content-type": CONTENT_TYPE_JSON, [RETRY_AFTER]: String(s) },
    body: CONCURRENCY_LIMITED_BODY,
  };
}

function toResponse(r: Rejection): Response {
  return new Response(r.body, { status: r.status, headers: r.headers });
}

/** {@link rateLimited} as a Fetch `Response` (for Hono, Next.js route handlers, Deno-style servers). */
export function rateLimitedResponse(info: RateLimitHeaders, options: HeaderOptions = {}): Response {
  return toResponse(rateLimited(info, options));
}

/** {@link concurrencyLimited} as a Fetch `Response`. */
export function concurrencyLimitedResponse(retryAfterS: number): Response {
  return toResponse(concurrencyLimited(retryAfterS));
}

/** A Node response's `writeHead` / `end`. */
interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** Sends a rejection on a Node `http.ServerResponse`: `writeHead(429, headers)` then `end(body)`. */
export function sendRejection(res: NodeResponseLike, rejection: Rejection): void {
  res.writeHead(rejection.status, rejection.headers);
  res.end(rejection.body);
}
