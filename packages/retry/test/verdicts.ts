import type { Verdict } from "@resil/classify";

/** What classify says for a 503 (transient, provider-wide). */
export const transient: Verdict = {
  retryable: true,
  failover: true,
  breaker: { kind: "vendor" },
  callerError: false,
  vendorConcurrency: false,
};

/** What classify says for a 400. */
export const callerError: Verdict = {
  retryable: false,
  failover: false,
  breaker: { kind: "ignore" },
  callerError: true,
  vendorConcurrency: false,
};

/** What classify says for a 429 with a delay hint of `ms`. */
export const rateLimited = (ms: number): Verdict => ({
  retryable: true,
  failover: true,
  breaker: { kind: "openFor", ms },
  callerError: false,
  retryAfterMs: ms,
  vendorConcurrency: false,
});

/** A failure carrying an HTTP status, as the tests' upstream raises it. */
export class StatusError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {
    super(`status ${status}`);
  }
}

/** A tiny status -> verdict mapping standing in for classify. */
export function classifyStatus(error: unknown): Verdict {
  if (!(error instanceof StatusError)) return transient;
  if (error.status === 429 && error.retryAfterMs !== undefined) return rateLimited(error.retryAfterMs);
  if (error.status >= 400 && error.status < 500 && error.status !== 429) return callerError;
  return transient;
}
