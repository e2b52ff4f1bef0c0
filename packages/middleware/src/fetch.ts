import { clientAddress } from "./client-ip.js";
import type { RateLimitGate, Verdict } from "./gate.js";
import { emitRateHeaders, RETRY_AFTER } from "./headers.js";
import type { RejectionTemplate } from "./rejections.js";

/** A Fetch `Headers` or anything with `set(name, value)`. */
export interface HeaderSink {
  set(name: string, value: string): unknown;
}

function setOn(target: HeaderSink, name: string, value: string): void {
  target.set(name, value);
}

function pushTo(list: [string, string][], name: string, value: string): void {
  list.push([name, value]);
}

/** The client address of a Fetch request: `remoteAddress`, or `X-Forwarded-For` with `trustProxy`. */
export function fetchAddress(trustProxy: number) {
  return (request: { headers: { get(name: string): string | null } }, remoteAddress: string | undefined) =>
    clientAddress(remoteAddress, request.headers.get("x-forwarded-for") ?? undefined, trustProxy);
}

/** Writes the rate headers of a request let through (nothing for `skip` and `unlimited`). */
export function setAllowHeaders<Req>(gate: RateLimitGate<Req>, verdict: Verdict, target: HeaderSink): void {
  if (verdict.kind === "allow") emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, target, setOn);
}

/** The Fetch `Response` of a rejection (`deny`, `busy`, `failed`), or undefined for a request let through. */
export function rejectionResponse<Req>(gate: RateLimitGate<Req>, verdict: Verdict): Response | undefined {
  let t: RejectionTemplate;
  const head: [string, string][] = [];
  switch (verdict.kind) {
    case "deny":
      t = gate.rejections.rate;
      head.push(["content-type", t.contentType]);
      emitRateHeaders(gate.headerMode, verdict.headers, gate.ietf, head, pushTo);
      if (verdict.headers.retryAfter !== undefined)
        head.push([RETRY_AFTER, String(verdict.headers.retryAfter)]);
      break;
    case "busy":
      t = gate.rejections.busy;
      head.push(
        ["content-type", t.contentType],
        [RETRY_AFTER, String(Math.max(1, Math.ceil(verdict.retryAfter)))],
      );
      break;
    case "failed":
      t = gate.rejections.unavailable;
      head.push(["content-type", t.contentType]);
      break;
    default:
      return undefined;
  }
  return new Response(t.body, { status: t.status, headers: head });
}
