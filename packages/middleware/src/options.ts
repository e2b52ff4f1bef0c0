import { InvalidMiddlewareOptionError } from "./errors.js";
import { HEADER_MODES, type HeaderMode } from "./headers.js";
import type { LimiterLike, RateLimitsLike } from "./limiter-like.js";
import { BODY_FORMATS, type BodyFormat } from "./rejections.js";

/** Options every middleware takes; `Req` is what the key, cost and skip functions receive. */
export interface RateLimitOptions<Req> {
  /** The limiter (`@resil/limit`'s `Limiter`), shared by every middleware of the process. */
  limiter: LimiterLike;
  /** The subject prefix of this middleware's keys (a policy family): subject = family + key. */
  family: string;
  /** When given, `limiter.setFamily(family, rateLimits, maxConcurrent)` is called at construction. */
  rateLimits?: RateLimitsLike | null;
  /** The family's concurrency cap (slots in flight cluster-wide per key); see `slots`. */
  maxConcurrent?: number | null;
  /** Hold a concurrency slot for each admitted request's life. Default: `maxConcurrent > 0`. */
  slots?: boolean;
  /** The key of a request. Default: the client address, IPv6 grouped by `ipv6Subnet`. */
  key?: (req: Req) => string;
  /** Proxies in front of the server whose `X-Forwarded-For` entries are trusted. Default 0: the socket peer. */
  trustProxy?: number;
  /** Prefix length IPv6 addresses are grouped by in the default key. Default 64. */
  ipv6Subnet?: number;
  /** Units a request costs. Default 1. */
  cost?: (req: Req) => number;
  /** Requests to let through unlimited and without headers. */
  skip?: (req: Req) => boolean;
  /** Keys (client addresses with the default key) that are never limited. */
  allowList?: Iterable<string>;
  /**
   * Remember a denial until its Retry-After and answer the key's requests from memory meanwhile (no
   * limiter call, no store round). Default true; false asks the limiter for every request.
   */
  rememberDenials?: boolean;
  /** Rate-limit headers to send. Default "x-ratelimit". */
  headers?: HeaderMode;
  /** Body of a 429 (and of the 503 below). Default "openai". */
  body?: BodyFormat;
  /** When a limiter call throws: "allow" the request (default, fail open) or "deny" it with a 503. */
  onLimiterError?: "allow" | "deny";
  /** Told of every limiter error (and of key function failures); what it throws is ignored. */
  onError?: (error: unknown, subject: string | undefined) => void;
}

/** Throws InvalidMiddlewareOptionError for the first bad field. */
export function validateOptions<Req>(o: RateLimitOptions<Req>): void {
  const l = o?.limiter as Partial<LimiterLike> | undefined;
  if (typeof l?.tryCheck !== "function" || typeof l.check !== "function" || typeof l.acquire !== "function") {
    throw new InvalidMiddlewareOptionError(
      "limiter",
      "must have tryCheck, check and acquire (a @resil/limit Limiter)",
    );
  }
  if (typeof o.family !== "string" || o.family === "") {
    throw new InvalidMiddlewareOptionError(
      "family",
      'must be a non-empty string (the subject prefix, e.g. "ip:")',
    );
  }
  if ((o.rateLimits != null || o.maxConcurrent != null) && typeof l.setFamily !== "function") {
    throw new InvalidMiddlewareOptionError(
      "limiter",
      "has no setFamily; give rateLimits/maxConcurrent to the limiter yourself",
    );
  }
  if (o.maxConcurrent != null && !(Number.isInteger(o.maxConcurrent) && o.maxConcurrent >= 0)) {
    throw new InvalidMiddlewareOptionError(
      "maxConcurrent",
      `must be a non-negative integer, got ${o.maxConcurrent}`,
    );
  }
  for (const f of ["key", "cost", "skip", "onError"] as const) {
    if (o[f] !== undefined && typeof o[f] !== "function") {
      throw new InvalidMiddlewareOptionError(f, "must be a function");
    }
  }
  if (o.trustProxy !== undefined && !(Number.isInteger(o.trustProxy) && o.trustProxy >= 0)) {
    throw new InvalidMiddlewareOptionError(
      "trustProxy",
      `must be a non-negative integer (proxy hops), got ${String(o.trustProxy)}`,
    );
  }
  if (
    o.ipv6Subnet !== undefined &&
    !(Number.isInteger(o.ipv6Subnet) && o.ipv6Subnet >= 1 && o.ipv6Subnet <= 128)
  ) {
    throw new InvalidMiddlewareOptionError("ipv6Subnet", `must be an integer 1..128, got ${o.ipv6Subnet}`);
  }
  if (o.headers !== undefined && !HEADER_MODES.includes(o.headers)) {
    throw new InvalidMiddlewareOptionError(
      "headers",
      `must be one of ${HEADER_MODES.join(", ")}, got ${String(o.headers)}`,
    );
  }
  if (o.body !== undefined && !BODY_FORMATS.includes(o.body)) {
    throw new InvalidMiddlewareOptionError(
      "body",
      `must be one of ${BODY_FORMATS.join(", ")}, got ${String(o.body)}`,
    );
  }
  if (o.onLimiterError !== undefined && o.onLimiterError !== "allow" && o.onLimiterError !== "deny") {
    throw new InvalidMiddlewareOptionError(
      "onLimiterError",
      `must be "allow" or "deny", got ${String(o.onLimiterError)}`,
    );
  }
}
