import { CONCURRENCY_LIMITED_BODY, CONTENT_TYPE_JSON, RATE_LIMITED_BODY } from "@resil/http";

/** The 429 / 503 body: OpenAI-style JSON (`@resil/http`'s exact bytes) or RFC 9457 problem details. */
export type BodyFormat = "openai" | "problem";

export const BODY_FORMATS: readonly BodyFormat[] = ["openai", "problem"];

export const CONTENT_TYPE_PROBLEM = "application/problem+json";

/** A rejection precomputed once per middleware: its status, content type and body bytes. */
export interface RejectionTemplate {
  readonly status: 429 | 503;
  readonly contentType: string;
  /**
   * The body. A string on purpose: Node writes a string body with the head in one write, a byte
   * array in a second chunk (a writev per response).
   */
  readonly body: string;
  /** The body's length in bytes as a string, for `content-length`. */
  readonly contentLength: string;
}

/** The three rejections a middleware sends: over the rate limit, over the concurrency cap, limiter failed. */
export interface RejectionSet {
  readonly rate: RejectionTemplate;
  readonly busy: RejectionTemplate;
  readonly unavailable: RejectionTemplate;
}

/** The OpenAI-style body of a 503 sent when the limiter failed and `onLimiterError` is "deny". */
export const LIMITER_UNAVAILABLE_BODY =
  '{"error":{"message":"Rate limiter unavailable","type":"server_error","code":"rate_limiter_unavailable"}}';

function problem(status: 429 | 503, title: string, detail: string): string {
  return JSON.stringify({ type: "about:blank", title, status, detail });
}

function template(status: 429 | 503, contentType: string, text: string): RejectionTemplate {
  return Object.freeze({ status, contentType, body: text, contentLength: String(Buffer.byteLength(text)) });
}

/** The rejections of one body format, built once so a denial builds nothing for its body. */
export function rejectionSet(format: BodyFormat): RejectionSet {
  if (format === "openai") {
    return Object.freeze({
      rate: template(429, CONTENT_TYPE_JSON, RATE_LIMITED_BODY),
      busy: template(429, CONTENT_TYPE_JSON, CONCURRENCY_LIMITED_BODY),
      unavailable: template(503, CONTENT_TYPE_JSON, LIMITER_UNAVAILABLE_BODY),
    });
  }
  return Object.freeze({
    rate: template(429, CONTENT_TYPE_PROBLEM, problem(429, "Too Many Requests", "Rate limit exceeded")),
    busy: template(
      429,
      CONTENT_TYPE_PROBLEM,
      problem(429, "Too Many Requests", "Too many concurrent requests"),
    ),
    unavailable: template(
      503,
      CONTENT_TYPE_PROBLEM,
      problem(503, "Service Unavailable", "Rate limiter unavailable"),
    ),
  });
}
