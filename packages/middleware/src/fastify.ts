import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { isPending, RateLimitGate, type Verdict } from "./gate.js";
import { emitRateHeaders, RETRY_AFTER } from "./headers.js";
import { nodeAddress } from "./node.js";
import { applyVerdict } from "./node-response.js";
import type { RateLimitOptions } from "./options.js";
import type { RejectionTemplate } from "./rejections.js";

/** Options of {@link fastifyRateLimit}: `trustProxy` may also be "framework" (Fastify's `request.ip`). */
export interface FastifyRateLimitOptions extends Omit<RateLimitOptions<FastifyRequest>, "trustProxy"> {
  /**
   * Proxy hops whose `X-Forwarded-For` entries are trusted (default 0: the socket peer), or
   * "framework": `request.ip`, as the server's own `trustProxy` option resolves it.
   */
  trustProxy?: number | "framework";
}

/** A Fastify `onRequest` hook with the gate it runs. */
export interface FastifyRateLimit {
  (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
  readonly gate: RateLimitGate<FastifyRequest>;
}

function setOn(reply: FastifyReply, name: string, value: string): void {
  reply.header(name, value);
}

/** Sends a rejection through the reply (so Fastify's onSend / onResponse hooks and logging still run). */
function reject(gate: RateLimitGate<FastifyRequest>, verdict: Verdict, reply: FastifyReply): void {
  let t: RejectionTemplate;
  if (verdict.kind === "deny") {
    t = gate.rejections.rate;
    emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, reply, setOn);
    if (verdict.headers.retryAfter !== undefined)
      reply.header(RETRY_AFTER, String(verdict.headers.retryAfter));
  } else if (verdict.kind === "busy") {
    t = gate.rejections.busy;
    reply.header(RETRY_AFTER, String(Math.max(1, Math.ceil(verdict.retryAfter))));
  } else {
    t = gate.rejections.unavailable;
  }
  reply.code(t.status).type(t.contentType).send(t.body);
}

/**
 * Rate (and concurrency) limiting for Fastify 5, as an `onRequest` hook: `app.addHook("onRequest",
 * hook)` for every route, or `{ onRequest: hook }` on one route with its own family. Imports nothing
 * from Fastify at run time.
 */
export function fastifyRateLimit(options: FastifyRateLimitOptions): FastifyRateLimit {
  const { trustProxy, ...rest } = options;
  const framework = trustProxy === "framework";
  const raw = nodeAddress(framework ? 0 : (trustProxy ?? 0));
  const gate = new RateLimitGate<FastifyRequest>(
    { ...rest, trustProxy: framework ? undefined : trustProxy },
    framework ? (request) => request.ip : (request) => raw(request.raw),
  );
  const apply = (verdict: Verdict, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (verdict.kind === "deny" || verdict.kind === "busy" || verdict.kind === "failed") {
      reject(gate, verdict, reply);
    } else {
      // headers straight on the raw response: Node merges them into Fastify's writeHead
      applyVerdict(gate, verdict, reply.raw);
      done();
    }
  };
  const hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = gate.decide(request);
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!isPending(verdict)) apply(verdict, reply, done);
    else verdict.then((v) => apply(v, reply, done), done);
  };
  return Object.assign(hook, { gate });
}
