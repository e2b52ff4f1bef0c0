import { BODY_SCAN_BYTES, type FailureBody } from "./body.js";
import type { Failure } from "./classify.js";
import { isHeadersInput } from "./headers.js";

/** Error codes (Node, libuv, undici) that mean the upstream took too long. */
export const TIMEOUT_CODES: readonly string[] = Object.freeze([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
]);

/** Error codes (Node, libuv, undici) that mean the upstream could not be reached or dropped the connection. */
export const CONNECT_CODES: readonly string[] = Object.freeze([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/** Error codes of a caller's own cancellation: never retried, never failed over. */
const ABORT_CODES: readonly string[] = ["ABORT_ERR", "UND_ERR_ABORTED", "ERR_CANCELED"];

// How deep `cause` / `response` / `errors` chains are followed.
const MAX_DEPTH = 8;

type Obj = Record<string, unknown>;

const isObject = (x: unknown): x is Obj => (typeof x === "object" || typeof x === "function") && x !== null;

function isBody(x: unknown): x is FailureBody {
  return typeof x === "string" || x instanceof Uint8Array || x instanceof ArrayBuffer;
}

function httpStatus(x: unknown): number | undefined {
  return typeof x === "number" && Number.isInteger(x) && x >= 100 && x <= 599 ? x : undefined;
}

/** Whether `x` already is a {@link Failure}. */
export function isFailure(x: unknown): x is Failure {
  if (!isObject(x)) return false;
  switch (x.kind) {
    case "timeout":
    case "connect":
    case "other":
      return true;
    case "status":
    case "wsClose":
      return typeof x.code === "number";
    default:
      return false;
  }
}

// A body the error object carries: a string or bytes (`body`, axios' `data`), or a parsed JSON
// error (`error` of the OpenAI SDK, axios' object `data`) serialised back.
function carriedBody(x: Obj): FailureBody | undefined {
  for (const key of ["body", "data", "error"]) {
    const v = x[key];
    if (isBody(v)) return v;
    if (key !== "body" && isObject(v) && !(v instanceof Error)) {
      try {
        const json = JSON.stringify(v);
        if (typeof json === "string") return json.slice(0, BODY_SCAN_BYTES);
      } catch {
        // not serialisable: no body
      }
    }
  }
  return undefined;
}

function walk(x: unknown, body: FailureBody | undefined, depth: number, seen: Set<unknown>): Failure {
  if (!isObject(x) || depth > MAX_DEPTH || seen.has(x)) return { kind: "other" };
  seen.add(x);
  try {
    return read(x, body, depth, seen);
  } catch {
    // a revoked Proxy or a throwing getter: this object tells nothing
    return { kind: "other" };
  }
}

function read(x: Obj, body: FailureBody | undefined, depth: number, seen: Set<unknown>): Failure {
  if (isFailure(x)) return x;
  const { name, code } = x;
  if (x.type === "close" && typeof code === "number") return { kind: "wsClose", code };
  if (name === "AbortError" || (typeof code === "string" && ABORT_CODES.includes(code)))
    return { kind: "other" };
  if (name === "TimeoutError") return { kind: "timeout" };
  if (typeof code === "string") {
    if (TIMEOUT_CODES.includes(code)) return { kind: "timeout" };
    if (CONNECT_CODES.includes(code)) return { kind: "connect" };
  }
  // An HTTP client error holding the response (axios, got): the response has the headers and body.
  const response = x.response;
  if (isObject(response) && httpStatus(response.status ?? response.statusCode) !== undefined) {
    return walk(response, body ?? carriedBody(response), depth + 1, seen);
  }
  const status = httpStatus(x.status ?? x.statusCode);
  if (status !== undefined) {
    const headers = isHeadersInput(x.headers) ? x.headers : undefined;
    return { kind: "status", code: status, headers, body: body ?? carriedBody(x) };
  }
  for (const next of [x.cause, ...(Array.isArray(x.errors) ? x.errors : [])]) {
    const f = walk(next, body, depth + 1, seen);
    if (f.kind !== "other") return f;
  }
  return { kind: "other" };
}

/**
 * Turns what Node code actually catches or receives into a {@link Failure}:
 * - a Fetch `Response`, a Node `IncomingMessage`, or any object with an HTTP `status` /
 *   `statusCode` (the OpenAI SDK's `APIError`, axios' and got's errors through their `response`):
 *   a status failure with its headers and, when given or carried as text / bytes / parsed JSON, its body;
 * - undici / Node errors by `code` ({@link TIMEOUT_CODES} -> timeout, {@link CONNECT_CODES} -> connect),
 *   followed through `cause` (fetch's `TypeError: fetch failed`) and `AggregateError.errors`;
 * - a `TimeoutError` (`AbortSignal.timeout`) -> timeout; an `AbortError` (the caller cancelled) -> other;
 * - a WebSocket `CloseEvent` -> wsClose; a `Failure` as it is; anything else -> other.
 *
 * `body` supplies a status failure's body when `x` carries none that can be read synchronously
 * (a Fetch `Response`'s stream is never read here: use {@link failureFromResponse}). Never throws.
 */
export function failureFrom(x: unknown, body?: FailureBody): Failure {
  return walk(x, body, 0, new Set());
}

/**
 * A Fetch `Response` as a status failure, with the first 4096 bytes of its body read from a clone
 * (the response itself stays readable). A body that cannot be read (already used, a stream error)
 * is left out. Never rejects.
 */
export async function failureFromResponse(res: Response): Promise<Failure> {
  const failure: Failure = { kind: "status", code: res.status, headers: res.headers };
  if (res.bodyUsed || res.body === null) return failure;
  try {
    const reader = res.clone().body!.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size < BODY_SCAN_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    reader.cancel().catch(() => {});
    const bytes = new Uint8Array(Math.min(size, BODY_SCAN_BYTES));
    let at = 0;
    for (const c of chunks) {
      const part = c.subarray(0, bytes.length - at);
      bytes.set(part, at);
      at += part.length;
    }
    failure.body = bytes;
  } catch {
    // unreadable body: classify on status and headers alone
  }
  return failure;
}
