import type { ConcurrencyReply, ConcurrencyRequest } from "../store/types.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import { blendRate, CREDIT_TRUST, endSync, type SyncEnv } from "./sync-maths.js";

/** Concurrency leases live at least this long. */
export const MIN_CONCURRENCY_LEASE_MS = 5_000;

/** A concurrency report in flight and what applying its reply needs. */
export interface ConcurrencySend {
  key: ConcurrencyKeyState;
  seq: number;
  activeAtSend: number;
  acquiredAtSend: number;
  ewma: number;
  sentAt: number;
  request: ConcurrencyRequest;
}

/** Builds a claimed concurrency key's report (see docs/protocol.md#s3-7). */
export function buildConcurrencySend(env: SyncEnv, c: ConcurrencyKeyState, now: number): ConcurrencySend {
  const { options, health } = env;
  const since = c.acquired - c.acquiredAtSync;
  const ewma = c.lastSync === Number.NEGATIVE_INFINITY ? c.ewma : blendRate(c.ewma, since, now - c.lastSync);
  const recovering = health.isRecovering(c.tuning, now, options.tickMs);
  const need = recovering ? 0 : c.waiters;
  const target =
    recovering || (since === 0 && need === 0)
      ? 0
      : Math.min(Math.max(Math.ceil(ewma * options.slowSyncMs * 2), 1), c.max);
  const unused = Math.min(Math.max(0, c.allowed - c.active), target);
  const request: ConcurrencyRequest = {
    key: c.storeKey,
    pod: options.podId,
    active: c.active,
    unused,
    want: target - unused,
    need,
    max: c.max,
    allowance: Math.min(c.tuning.localAllowance, 1),
    replicas: health.replicas(),
    leaseTtlMs: Math.max(options.leaseTtlMs, MIN_CONCURRENCY_LEASE_MS),
  };
  c.sendSeq++;
  c.lastSync = now;
  return {
    key: c,
    seq: c.sendSeq,
    activeAtSend: c.active,
    acquiredAtSend: c.acquired,
    ewma,
    sentAt: now,
    request,
  };
}

/** Applies a concurrency reply; `closing`: the credit is not trusted again. */
export function applyConcurrencyReply(
  env: SyncEnv,
  s: ConcurrencySend,
  reply: ConcurrencyReply,
  closing: boolean,
): void {
  const c = s.key;
  c.allowed = s.activeAtSend + reply.kept + reply.granted + reply.direct;
  if (!closing) c.validUntil = s.sentAt + CREDIT_TRUST * env.options.leaseTtlMs;
  c.acquiredAtSync = s.acquiredAtSend;
  c.others = reply.others;
  c.ewma = s.ewma;
  c.doneSeq = s.seq;
  endSync(c);
}

/** A failed round: the key syncs again next time (its report is absolute, nothing to roll back). */
export function revertConcurrencySend(s: ConcurrencySend): void {
  endSync(s.key);
}
