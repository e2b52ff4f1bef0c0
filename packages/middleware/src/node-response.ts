import type { ServerResponse } from "node:http";
import type { RateLimitGate, Verdict } from "./gate.js";
import { emitRateHeaders, RETRY_AFTER } from "./headers.js";
import type { HeldSlot } from "./limiter-like.js";
import type { RejectionTemplate } from "./rejections.js";

/** The part of a Node `ServerResponse` written to (Express and Fastify's raw responses are one). */
export type NodeResponse = Pick<ServerResponse, "setHeader" | "writeHead" | "end" | "once" | "headersSent">;

function setOn(res: NodeResponse, name: string, value: string): void {
  res.setHeader(name, value);
}

function pushTo(list: string[], name: string, value: string): void {
  list.push(name, value);
}

/**
 * Applies a verdict to a Node response: for a request let through, the rate headers are set and a
 * slot is tied to the response's end (finish, or close on a client abort); returns true. For a
 * rejection the whole answer is sent (precomputed body) and false is returned.
 */
export function applyVerdict<Req>(gate: RateLimitGate<Req>, verdict: Verdict, res: NodeResponse): boolean {
  switch (verdict.kind) {
    case "skip":
      return true;
    case "unlimited":
      if (verdict.slot !== undefined) releaseWhenDone(res, verdict.slot);
      return true;
    case "allow":
      emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, res, setOn);
      if (verdict.slot !== undefined) releaseWhenDone(res, verdict.slot);
      return true;
    case "deny": {
      const head = rejectionHead(gate.rejections.rate);
      emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, head, pushTo);
      if (verdict.headers.retryAfter !== undefined)
        head.push(RETRY_AFTER, String(verdict.headers.retryAfter));
      send(res, gate.rejections.rate, head);
      return false;
    }
    case "busy": {
      const head = rejectionHead(gate.rejections.busy);
      head.push(RETRY_AFTER, String(Math.max(1, Math.ceil(verdict.retryAfter))));
      send(res, gate.rejections.busy, head);
      return false;
    }
    case "failed":
      send(res, gate.rejections.unavailable, rejectionHead(gate.rejections.unavailable));
      return false;
  }
}

function rejectionHead(t: RejectionTemplate): string[] {
  return ["content-type", t.contentType, "content-length", t.contentLength];
}

function send(res: NodeResponse, t: RejectionTemplate, head: string[]): void {
  res.writeHead(t.status, head);
  res.end(t.body);
}

/** Releases `slot` once, when the response finishes or its connection closes (a client abort). */
export function releaseWhenDone(res: NodeResponse, slot: HeldSlot): void {
  let held = true;
  const release = () => {
    if (held) {
      held = false;
      slot.release();
    }
  };
  res.once("finish", release);
  res.once("close", release);
}
