/** Anything with a `get(name)` lookup, such as a Fetch `Headers` (case-insensitive by itself). */
export interface HeadersLike {
  get(name: string): string | null | undefined;
}

/**
 * A plain record of header values, such as Node's `IncomingHttpHeaders`. Names are matched
 * case-insensitively; a list (a repeated header) is read by its first value.
 */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | number | null | undefined>>;

/** Response headers as Node code holds them: a Fetch `Headers`, a plain record or `IncomingHttpHeaders`. */
export type HeadersInput = HeadersLike | HeaderRecord;

/** Whether `x` can be read as response headers (an object; a `get` method makes it a `HeadersLike`). */
export function isHeadersInput(x: unknown): x is HeadersInput {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// A repeated header is a flat list; deeper nesting (or a cycle) is no value rather than a deep walk.
const MAX_LIST_DEPTH = 4;

function fromValue(value: unknown): string | undefined {
  let v = value;
  for (let depth = 0; Array.isArray(v) && depth < MAX_LIST_DEPTH; depth++) v = v[0];
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return undefined;
}

/**
 * One header's value; `name` must be lowercase. The first value of a repeated header. Headers that
 * throw when read (a revoked Proxy, a throwing `get`) read as absent.
 */
export function headerValue(headers: HeadersInput, name: string): string | undefined {
  try {
    return lookup(headers, name);
  } catch {
    return undefined;
  }
}

function lookup(headers: HeadersInput, name: string): string | undefined {
  const get = (headers as Partial<HeadersLike>).get;
  if (typeof get === "function") {
    const v = get.call(headers, name);
    return typeof v === "string" ? v : undefined;
  }
  const record = headers as HeaderRecord;
  if (Object.hasOwn(record, name)) return fromValue(record[name]);
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === name) return fromValue(record[key]);
  }
  return undefined;
}

// A header value is readable only when it is visible ASCII or tab (as the http crate's `to_str`).
const READABLE = /^[\t\x20-\x7e]*$/;

/** The header's value when it is present and readable (visible ASCII), else undefined. */
export function readableHeader(headers: HeadersInput, name: string): string | undefined {
  const v = headerValue(headers, name);
  return v !== undefined && READABLE.test(v) ? v : undefined;
}
