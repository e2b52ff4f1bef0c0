/**
 * A limiter's decision headers (the shape of `@resil/limit`'s, restated here so this package has
 * no run-time dependency on the limiter).
 */
export interface RateLimitHeaders {
  /** The limit of the most restrictive window. */
  limit: number;
  /** The fewest requests left across the windows. */
  remaining: number;
  /** When the window resets: ABSOLUTE Unix time in seconds. */
  reset: number;
  /** Whole seconds to wait (>= 1), on a denial only. */
  retryAfter?: number;
}

export const X_RATELIMIT_LIMIT = "x-ratelimit-limit";
export const X_RATELIMIT_REMAINING = "x-ratelimit-remaining";
export const X_RATELIMIT_RESET = "x-ratelimit-reset";
export const RETRY_AFTER = "retry-after";
/** The IETF `RateLimit` field (draft-ietf-httpapi-ratelimit-headers): what is left, per policy. */
export const RATELIMIT = "ratelimit";
/** The IETF `RateLimit-Policy` field: the quota and window of each policy. */
export const RATELIMIT_POLICY = "ratelimit-policy";

/** The headers a browser client must be allowed to read (CORS `Access-Control-Expose-Headers`), in order. */
export const EXPOSE_HEADERS = Object.freeze([
  RETRY_AFTER,
  X_RATELIMIT_LIMIT,
  X_RATELIMIT_REMAINING,
  X_RATELIMIT_RESET,
] as const);

/** {@link EXPOSE_HEADERS} plus the two IETF fields, for services that send them. */
export const IETF_EXPOSE_HEADERS = Object.freeze([...EXPOSE_HEADERS, RATELIMIT, RATELIMIT_POLICY] as const);

/** A Fetch `Headers` or anything with `set(name, value)` that replaces a header. */
export interface HeadersSetter {
  set(name: string, value: string): unknown;
}

/** A Node `http.ServerResponse` (or an Express / Fastify raw response): `setHeader` replaces. */
export interface ServerResponseLike {
  setHeader(name: string, value: string): unknown;
}

/** Where headers are written: a Fetch `Headers`, a Node `http.ServerResponse`, or a plain record. */
export type HeaderTarget = HeadersSetter | ServerResponseLike | Record<string, unknown>;

/** One rate window for the IETF fields: its policy (quota, window) and its current service limit. */
export interface IetfWindow {
  /** The policy's name (an SF string: printable ASCII). Default: by window, "second" / "minute" /
   * "hour" / "<n>s", or "default" without a window. Names must differ within one response. */
  name?: string;
  /** The quota `q`: requests allowed per window. */
  limit: number;
  /** The window `w` in ms (a whole number of seconds); omitted from the policy when absent. */
  windowMs?: number;
  /** The available quota `r`. */
  remaining: number;
  /** When the window resets, absolute Unix seconds; written as `t`, the seconds from now. */
  reset: number;
}

/** Options of {@link writeHeaders} and the rejection helpers. */
export interface HeaderOptions {
  /**
   * Also write the IETF `RateLimit` and `RateLimit-Policy` fields, after the `x-ratelimit-*` ones:
   * `true` for one policy named "default" made from the headers themselves (no window), or the
   * windows to list (one item per window, in the given order).
   */
  ietf?: true | readonly IetfWindow[];
  /** The clock for the IETF `t` parameter, in Unix ms. Default `Date.now()`. */
  nowMs?: number;
}

const MAX_SF_INTEGER = 999_999_999_999_999;

function integer(value: number, what: string, max = Number.MAX_SAFE_INTEGER): string {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(
      `${what} must be a non-negative integer${max < Number.MAX_SAFE_INTEGER ? ` <= ${max}` : ""}, got ${value}`,
    );
  }
  return String(value + 0);
}

function sfString(s: string): string {
  if (!/^[\x20-\x7e]*$/.test(s))
    throw new RangeError(`IETF policy name must be printable ASCII, got ${JSON.stringify(s)}`);
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function defaultName(windowMs: number | undefined): string {
  switch (windowMs) {
    case undefined:
      return "default";
    case 1000:
      return "second";
    case 60_000:
      return "minute";
    case 3_600_000:
      return "hour";
    default:
      return `${windowMs / 1000}s`;
  }
}

/** The two IETF field values for these windows. */
function ietfFields(windows: readonly IetfWindow[], nowMs: number): [rateLimit: string, policy: string] {
  if (windows.length === 0) throw new RangeError("ietf: at least one window is needed");
  if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs must be finite, got ${nowMs}`);
  const limits: string[] = [];
  const policies: string[] = [];
  for (const w of windows) {
    const name = sfString(w.name ?? defaultName(w.windowMs));
    const q = integer(w.limit, "ietf limit", MAX_SF_INTEGER);
    const r = integer(w.remaining, "ietf remaining", MAX_SF_INTEGER);
    integer(w.reset, "ietf reset");
    // Seconds until the reset, rounded up so a client that waits `t` is never early.
    const t = Math.max(0, Math.ceil(w.reset - nowMs / 1000));
    let policy = `${name};q=${q}`;
    if (w.windowMs !== undefined) {
      if (!(w.windowMs > 0) || w.windowMs % 1000 !== 0) {
        throw new RangeError(`ietf windowMs must be a positive whole number of seconds, got ${w.windowMs}`);
      }
      policy += `;w=${integer(w.windowMs / 1000, "ietf window", MAX_SF_INTEGER)}`;
    }
    policies.push(policy);
    limits.push(`${name};r=${r};t=${integer(t, "ietf t", MAX_SF_INTEGER)}`);
  }
  return [limits.join(", "), policies.join(", ")];
}

/**
 * The headers for `info`, in order: `x-ratelimit-limit`, `x-ratelimit-remaining`,
 * `x-ratelimit-reset` (decimal integers), `retry-after` when present, then the IETF fields when asked.
 * Throws a `RangeError` for a value that is not a non-negative safe integer.
 */
export function rateLimitHeaderList(info: RateLimitHeaders, options: HeaderOptions = {}): [string, string][] {
  const out: [string, string][] = [
    [X_RATELIMIT_LIMIT, integer(info.limit, "limit")],
    [X_RATELIMIT_REMAINING, integer(info.remaining, "remaining")],
    [X_RATELIMIT_RESET, integer(info.reset, "reset")],
  ];
  if (info.retryAfter != null) out.push([RETRY_AFTER, integer(info.retryAfter, "retryAfter")]);
  if (options.ietf !== undefined) {
    const windows =
      options.ietf === true
        ? [{ limit: info.limit, remaining: info.remaining, reset: info.reset }]
        : options.ietf;
    const [rateLimit, policy] = ietfFields(windows, options.nowMs ?? Date.now());
    out.push([RATELIMIT, rateLimit], [RATELIMIT_POLICY, policy]);
  }
  return out;
}

/** Sets one header on any target, replacing what it held (in a record: under any case). */
export function setHeader(target: HeaderTarget, name: string, value: string): void {
  if (typeof (target as Partial<ServerResponseLike>).setHeader === "function") {
    (target as ServerResponseLike).setHeader(name, value);
  } else if (typeof (target as Partial<HeadersSetter>).set === "function") {
    (target as HeadersSetter).set(name, value);
  } else {
    const record = target as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key !== name && key.toLowerCase() === name) delete record[key];
    }
    record[name] = value;
  }
}

/**
 * Writes the `x-ratelimit-limit`, `x-ratelimit-remaining` and `x-ratelimit-reset` headers as
 * decimal integers, replacing any earlier values, and `retry-after` only when `info.retryAfter` is
 * present; with `options.ietf`, the IETF `RateLimit` and `RateLimit-Policy` fields too.
 *
 * `target` is a Fetch `Headers`, a Node `http.ServerResponse` or a plain record. Every value is
 * checked before the first header is written, so a `RangeError` (a value that is not a
 * non-negative safe integer, a bad IETF window) leaves the target untouched. Errors of the target
 * itself propagate: a `TypeError` from an immutable `Headers` (a fetched response's), Node's
 * `ERR_HTTP_HEADERS_SENT` once the headers are out.
 */
export function writeHeaders(
  info: RateLimitHeaders,
  target: HeaderTarget,
  options: HeaderOptions = {},
): void {
  for (const [name, value] of rateLimitHeaderList(info, options)) setHeader(target, name, value);
}
