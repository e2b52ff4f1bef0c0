import type { NextFunction, Request, Response } from "express";
import { RateLimitGate } from "./gate.js";
import { connectMiddleware, nodeAddress } from "./node.js";
import type { RateLimitOptions } from "./options.js";

/** Options of {@link expressRateLimit}: `trustProxy` may also be "framework" (Express's `req.ip`). */
export interface ExpressRateLimitOptions extends Omit<RateLimitOptions<Request>, "trustProxy"> {
  /**
   * Proxy hops whose `X-Forwarded-For` entries are trusted (default 0: the socket peer), or
   * "framework": `req.ip`, as the app's `trust proxy` setting resolves it.
   */
  trustProxy?: number | "framework";
}

/** An Express middleware with the gate it runs. */
export interface ExpressRateLimit {
  (req: Request, res: Response, next: NextFunction): void;
  readonly gate: RateLimitGate<Request>;
}

/**
 * Rate (and concurrency) limiting for Express 4 and 5: `app.use(expressRateLimit(...))`, or one per
 * route with its own family. Imports nothing from Express at run time.
 */
export function expressRateLimit(options: ExpressRateLimitOptions): ExpressRateLimit {
  const { trustProxy, ...rest } = options;
  const framework = trustProxy === "framework";
  const hops = nodeAddress(framework ? 0 : (trustProxy ?? 0));
  const gate = new RateLimitGate<Request>(
    { ...rest, trustProxy: framework ? undefined : trustProxy },
    framework ? (req) => req.ip ?? req.socket.remoteAddress : hops,
  );
  return Object.assign(connectMiddleware(gate), { gate });
}
