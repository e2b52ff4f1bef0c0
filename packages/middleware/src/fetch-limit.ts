import { fetchAddress, rejectionResponse, setAllowHeaders } from "./fetch.js";
import { isPending, RateLimitGate } from "./gate.js";
import type { RateLimitOptions } from "./options.js";

/** A Fetch handler the limit wraps. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * The Fetch middleware: `(request, handler, remoteAddress?)` answers a rejection itself, else calls
 * `handler` and adds the rate headers to its response (copying it when its headers are immutable).
 * `remoteAddress` is the client address the server knows (Bun's `server.requestIP(req)`, Deno's
 * `info.remoteAddr.hostname`); the default key needs it or `trustProxy`. A slot is held until the
 * handler's promise settles (a streamed body may outlive it).
 */
export interface FetchRateLimit {
  (request: Request, handler: FetchHandler, remoteAddress?: string): Promise<Response>;
  readonly gate: RateLimitGate<Request>;
}

/** Rate (and concurrency) limiting over the Fetch `Request` / `Response`. */
export function fetchRateLimit(options: RateLimitOptions<Request>): FetchRateLimit {
  const gate = new RateLimitGate(options, fetchAddress(options.trustProxy ?? 0));
  const limit = async (
    request: Request,
    handler: FetchHandler,
    remoteAddress?: string,
  ): Promise<Response> => {
    const pending = gate.decide(request, remoteAddress);
    const verdict = isPending(pending) ? await pending : pending;
    const rejection = rejectionResponse(gate, verdict);
    if (rejection !== undefined) return rejection;
    const slot = verdict.kind === "allow" || verdict.kind === "unlimited" ? verdict.slot : undefined;
    try {
      let response = await handler(request);
      if (verdict.kind === "allow") {
        try {
          setAllowHeaders(gate, verdict, response.headers);
        } catch {
          // immutable headers (a fetched response): copy it
          response = new Response(response.body, response);
          setAllowHeaders(gate, verdict, response.headers);
        }
      }
      return response;
    } finally {
      slot?.release();
    }
  };
  return Object.assign(limit, { gate });
}
