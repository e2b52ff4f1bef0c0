import type { IncomingMessage, ServerResponse } from "node:http";
import { clientAddress } from "./client-ip.js";
import { isPending, RateLimitGate, type Verdict } from "./gate.js";
import { applyVerdict, type NodeResponse } from "./node-response.js";
import type { RateLimitOptions } from "./options.js";

/** Connect-style continuation: called with no argument to go on, with an error to fail the request. */
export type NodeNext = (error?: unknown) => void;

/** A `node:http` request handler, sync or async. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The `node:http` middleware: `(req, res, next)`, plus `wrap` for a plain `createServer` handler. */
export interface NodeRateLimit {
  (req: IncomingMessage, res: ServerResponse, next: NodeNext): void;
  /**
   * A `createServer` listener: limits, then calls `handler`. A handler that throws or rejects gets a
   * 500 (or its socket destroyed when the headers are out), and its slot is released.
   */
  wrap(handler: NodeHandler): (req: IncomingMessage, res: ServerResponse) => void;
  readonly gate: RateLimitGate<IncomingMessage>;
}

/** The client address of a Node request: the socket peer, or `X-Forwarded-For` with `trustProxy`. */
export function nodeAddress(trustProxy: number): (req: IncomingMessage) => string | undefined {
  return (req) => clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustProxy);
}

/** Rate (and concurrency) limiting for `node:http` and any connect-style stack. */
export function nodeRateLimit(options: RateLimitOptions<IncomingMessage>): NodeRateLimit {
  const gate = new RateLimitGate(options, nodeAddress(options.trustProxy ?? 0));
  const middleware = connectMiddleware(gate);
  const wrap = (handler: NodeHandler) => (req: IncomingMessage, res: ServerResponse) => {
    middleware(req, res, (error?: unknown) => {
      if (error !== undefined) return fail(res, error);
      try {
        const out = handler(req, res);
        if (out instanceof Promise) out.catch((e: unknown) => fail(res, e));
      } catch (e) {
        fail(res, e);
      }
    });
  };
  return Object.assign(middleware, { wrap, gate });
}

/** The `(req, res, next)` middleware of a gate (node:http, Express, any connect-style stack). */
export function connectMiddleware<Req extends IncomingMessage>(
  gate: RateLimitGate<Req>,
): (req: Req, res: NodeResponse, next: NodeNext) => void {
  return (req, res, next) => {
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = gate.decide(req);
    } catch (error) {
      next(error);
      return;
    }
    if (!isPending(verdict)) {
      if (applyVerdict(gate, verdict, res)) next();
      return;
    }
    verdict.then((v) => {
      if (applyVerdict(gate, v, res)) next();
    }, next);
  };
}

// Ends the response so its slot is released: a 500 while nothing was sent, else the socket is cut.
function fail(res: ServerResponse, _error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { "content-type": "text/plain" });
  res.end("Internal Server Error");
}
