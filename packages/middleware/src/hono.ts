import type { Context, MiddlewareHandler } from "hono";
import { clientAddress } from "./client-ip.js";
import { rejectionResponse } from "./fetch.js";
import { isPending, RateLimitGate } from "./gate.js";
import { emitRateHeaders } from "./headers.js";
import type { HeldSlot } from "./limiter-like.js";
import { type NodeResponse, releaseWhenDone } from "./node-response.js";
import type { RateLimitOptions } from "./options.js";

/** A Hono middleware with the gate it runs. */
export type HonoRateLimit = MiddlewareHandler & { readonly gate: RateLimitGate<Context> };

/** What `@hono/node-server` puts in `c.env`: the Node request and response. */
interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
  outgoing?: NodeResponse;
}

function setOn(c: Context, name: string, value: string): void {
  c.header(name, value);
}

/**
 * The default key's address under `@hono/node-server`: the socket peer (`c.env.incoming`), or
 * `X-Forwarded-For` with `trustProxy`. On other runtimes pass `key` (e.g. from Hono's `getConnInfo`).
 */
function honoAddress(trustProxy: number) {
  return (c: Context) => {
    const socket = (c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress;
    return clientAddress(socket, c.req.header("x-forwarded-for"), trustProxy);
  };
}

/**
 * Rate (and concurrency) limiting for Hono 4: `app.use(honoRateLimit(...))`, or one per route with its
 * own family. A slot is held until the Node response ends (under `@hono/node-server`), elsewhere until
 * the downstream handlers return. Imports nothing from Hono at run time.
 */
export function honoRateLimit(options: RateLimitOptions<Context>): HonoRateLimit {
  const gate = new RateLimitGate<Context>(options, honoAddress(options.trustProxy ?? 0));
  const middleware: MiddlewareHandler = async (c, next) => {
    const pending = gate.decide(c);
    const verdict = isPending(pending) ? await pending : pending;
    const rejection = rejectionResponse(gate, verdict);
    if (rejection !== undefined) return rejection;
    if (verdict.kind === "allow") emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, c, setOn);
    const slot: HeldSlot | undefined =
      verdict.kind === "allow" || verdict.kind === "unlimited" ? verdict.slot : undefined;
    if (slot === undefined) return next();
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    if (outgoing !== undefined && typeof outgoing.once === "function") {
      releaseWhenDone(outgoing, slot);
      return next();
    }
    try {
      await next();
    } finally {
      slot.release();
    }
  };
  return Object.assign(middleware, { gate });
}
