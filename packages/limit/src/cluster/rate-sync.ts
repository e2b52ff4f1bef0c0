import { FIXED_WINDOW, TOKEN_BUCKET } from "../store/algorithm-code.js";
import type { RateReply, RateRequest } from "../store/types.js";
import { dropStaleDirect, holdDirectUntil } from "./direct-units.js";
import { longestRetryMs, snapshotHeaders } from "./headers.js";
import { idleLeaseMs, idleRoom, idleTarget, isBusy } from "./idle-credit.js";
import { droppedSoFar } from "./ledger.js";
import { hitsChargedNow, pushTimes } from "./push-times.js";
import { RateAsk } from "./rate-ask.js";
import type { RateKeyState } from "./rate-key.js";
import { shareRoom } from "./recovery-cap.js";
import { seenWindows, viewReply } from "./reply-view.js";
import { carryDebt, noteDebt } from "./settle.js";
import { blendRate, CREDIT_TRUST, endSync, type SyncEnv, windowEnd } from "./sync-maths.js";

/** A rate request in flight and what applying (or reverting) its reply needs (a class: see RateAsk). */
export class RateSend {
  constructor(
    readonly key: RateKeyState,
    readonly seq: number,
    /** `admitted` when the request was built. */
    readonly admittedAtSend: number,
    /** `pushed` once the request is sent: max(admittedAtSend, pushedBefore). */
    readonly pushedAtSend: number,
    readonly pushedBefore: number,
    /** `directDropped` when the request was built. */
    readonly droppedAtSend: number,
    readonly ewma: number,
    readonly sentAt: number,
    readonly request: RateAsk,
    /** Sent while credit stays within this replica's share after an outage. */
    readonly capped: boolean,
  ) {}
}

/**
 * Extension: how often a replica that keeps running out of credit asks for more: half a sync
 * interval, and at most replicas x the smallest window / 100: a sliding window loses about twice
 * (interval / (replicas x window)) of its limit to credit held between asks (measured, simulation).
 */
export function pacingMs(k: RateKeyState, replicas: number): number {
  return Math.min(k.policy.syncIntervalMs / 2, (k.minWindowMs * replicas) / 100);
}

/**
 * Extension: the credit an out-of-credit replica asks for at once: its even share of what frees in
 * one pacing interval. 0: no batch (the protocol's grant step), below 2 units or for a fixed window,
 * which frees nothing until it ends.
 */
export function batchSize(k: RateKeyState, replicas: number): number {
  if (k.alg === FIXED_WINDOW) return 0;
  const pace = pacingMs(k, replicas);
  let share = Number.POSITIVE_INFINITY;
  for (const w of k.windows) share = Math.min(share, (w.limit * pace) / (w.windowMs * replicas));
  const batch = Math.min(Math.floor(share), k.minCapacity);
  return batch >= 2 ? batch : 0;
}

/** Builds a claimed key's rate request (see docs/protocol.md#s3-2) and moves its admits to in flight. */
export function buildRateSend(env: SyncEnv, k: RateKeyState, now: number): RateSend {
  const { options, health } = env;
  const t = now + health.offset;
  dropStaleDirect(k, t);
  carryDebt(k, t);
  const replicas = health.replicas();
  const admitted = k.admitted;
  const pushedBefore = k.pushed;
  // pushed > admitted while a direct unit no waiter took is unspent: the store counted it already,
  // so nothing is pending and pushed must not move back (it would be charged twice).
  const pending = Math.max(0, admitted - pushedBefore);
  const err = health.offsetError();
  // a probe (the store failing) may be answered any time: its admits are dated wherever they fall
  const rtt = health.failing ? Number.POSITIVE_INFINITY : health.rttMs;
  const { hits, hitsOld, tOld } = pushTimes(k, pending, pushedBefore, t, err, rtt);
  // Extension: requests denied since the last sync count as demand, so a replica denied at the end
  // of a fixed window asks for more than its few admits as the next one opens.
  const sample = pending + k.denied;
  if (sample > 0) k.usedWindow = Math.max(k.usedWindow, Math.floor(t / k.minWindowMs));
  const ewma =
    k.lastSync === Number.NEGATIVE_INFINITY
      ? Math.max(sample, 1) / k.policy.syncIntervalMs
      : blendRate(k.ewma, sample, now - k.lastSync);
  const horizon = isBusy(k, t) ? k.policy.syncIntervalMs : options.slowSyncMs;
  const recovering = health.isRecovering(k.policy, now, options.tickMs);
  let target = Math.min(Math.max(Math.ceil(ewma * horizon * 3), 1), Math.max(k.minCapacity, 1));
  // Extension (docs/protocol.md#s4): after an outage, credit held, asked and admitted within the share
  const capped = !recovering && health.isCapped(k.policy, now);
  if (capped) {
    const room = shareRoom(k, env.localWindows, t - err, replicas, { pushedBefore, hits, hitsOld, tOld });
    if (k.unused() > room) k.credit = k.admitted + room;
    target = Math.min(target, room);
  }
  // Extension (fair shares, docs/protocol.md#s3-9): the largest request waiting, when above one unit
  // (1: a one-unit request within its share); a large one hands its unused credit back to a sliding
  // window or token bucket, where it may fill the pool (it waits because that credit falls short)
  const head = recovering || capped || k.waiters === 0 || k.ledger === undefined ? 0 : k.ledger.head;
  if (head >= 2 && k.alg !== FIXED_WINDOW) k.credit = Math.min(k.credit, k.admitted);
  // idle only when neither recovering nor capped, where the need is every waiter
  const room = !recovering && !capped && k.denied === 0 ? idleRoom(k, t) : Number.NEGATIVE_INFINITY;
  const idle = target + k.waiters <= room;
  if (idle && k.lastSync !== Number.NEGATIVE_INFINITY)
    target = idleTarget(k, target, ewma, room, options.leaseTtlMs);
  const unused = Math.min(k.unused(), target);
  const need = recovering ? 0 : capped ? Math.min(k.waiters, target - unused) : k.waiters;
  const request = new RateAsk();
  request.key = k.storeKey;
  request.alg = k.alg;
  request.windows = k.windows as RateRequest["windows"];
  request.pod = options.podId;
  request.hits = hits;
  request.hitsOld = hitsOld;
  request.tOld = tOld;
  request.unused = unused;
  request.want = recovering ? 0 : target - unused - (capped ? need : 0);
  request.need = need;
  request.batch = recovering || capped || k.waiters === 0 ? 0 : batchSize(k, replicas);
  request.head = head;
  // a resent push (its round timed out, yet the store applied it) is charged once
  request.pushId = pending > 0 ? k.pushId : "";
  request.pushTotal = pending > 0 ? pushedBefore + pending : 0;
  // a store that lost the key's counts (restarted empty) gets back what this replica saw of them
  request.seen = seenWindows(k, t);
  request.allowance = Math.min(k.policy.localAllowance, 1);
  request.replicas = replicas;
  request.leaseTtlMs = idle ? idleLeaseMs(k, options.leaseTtlMs) : options.leaseTtlMs;
  k.sendSeq++;
  k.pushed = Math.max(admitted, pushedBefore);
  k.inflight = hits + hitsOld;
  k.lastSync = now;
  return new RateSend(
    k,
    k.sendSeq,
    admitted,
    k.pushed,
    pushedBefore,
    droppedSoFar(k),
    ewma,
    now,
    request,
    capped,
  );
}

/**
 * How long (ms from the reply) a replica that got nothing, or asked for a batch, waits before asking
 * again: until the store's view frees a unit beside what others hold, capped by the pacing interval.
 */
export function exhaustedWaitMs(
  env: SyncEnv,
  s: RateSend,
  reply: RateReply,
  t: number,
  paced: boolean,
): number {
  const k = s.key;
  const batch = s.request.batch ?? 0;
  const replicas = env.health.replicas();
  // Extension: a replica that asked with requests waiting now holds a ticket (store/turns.ts): the
  // units kept for it are in no one else's reach, so it waits only for those ahead (in `others`),
  // not for one unseen cold admit per other replica; a longer wait would leave its unit idle.
  // A replica served without a batch gave its ticket up: the others are ahead of it again, so it
  // waits for one unit per other replica, not one (an earlier ask would only queue it).
  const ticketed = s.request.need > 0 && !(batch === 0 && reply.granted + reply.direct >= 1);
  // Extension: and for the rest of the batch it asked for (older tickets held a batch each in the
  // store), so one round trip fetches a pacing interval's share.
  const ahead = ticketed ? Math.max(batch - 1, 0) : replicas - 1;
  const held = paced ? reply.kept + reply.granted : 0;
  const reserved = reply.others + k.localExtra() + ahead + held;
  const ms = longestRetryMs(k.alg, k.windows, reply.windows, t, reserved);
  // a batch is one pacing interval's share: asking later than that would leave units idle
  const wait = Math.min(ms, batch > 0 ? pacingMs(k, replicas) : k.policy.syncIntervalMs);
  // Extension: no unit frees before the windows' retry time were no replica holding credit (the
  // store's counts only grow; a fixed window frees at its reset, a sliding window and a token bucket
  // at their rate), so the key is denied locally until then: no round per burst, nor one per sync
  // interval per key over its limit.
  return Math.max(wait, longestRetryMs(k.alg, k.windows, reply.windows, t, 0));
}

/** Applies a rate reply (see docs/protocol.md#s3-3); `closing`: the credit is not trusted again. */
export function applyRateReply(
  env: SyncEnv,
  s: RateSend,
  reply: RateReply,
  recv: number,
  closing: boolean,
): void {
  const k = s.key;
  const t = recv + env.health.offset;
  viewReply(k, reply, recv);
  // Units admitted directly in a window that closed before the reply arrived stay unused: handed to
  // a request now they would count in the new window, which the store did not charge.
  const direct = k.alg !== TOKEN_BUCKET && reply.now < windowStart(t, k.minWindowMs) ? 0 : reply.direct;
  // direct units that lapsed while the round was in flight are not counted as pushed
  k.pushed = s.pushedAtSend - (droppedSoFar(k) - s.droppedAtSend) + direct;
  k.inflight = 0;
  if (direct > 0 && k.alg !== TOKEN_BUCKET) holdDirectUntil(k, windowEnd(reply.now, k.minWindowMs));
  const own = reply.kept + reply.granted + direct;
  k.credit = s.admittedAtSend + own;
  if (env.options.lastMile === "local" && own === 0 && reply.avail >= 1 && !s.capped) k.credit++;
  k.refillBelow = Math.floor((reply.kept + reply.granted) / 2);
  if (!closing) k.validUntil = s.sentAt + CREDIT_TRUST * s.request.leaseTtlMs;
  k.idleCredit = s.request.leaseTtlMs > env.options.leaseTtlMs;
  k.creditWindowEnd = windowEnd(t, k.minWindowMs);
  k.refillWanted = false;
  k.denied = 0;
  k.overrunSinceView = 0;
  k.ewma = s.ewma;
  const starved = own === 0 && k.credit === s.admittedAtSend && reply.avail < 1;
  // Extension: an ask for a batch is paced like one that got nothing: what it got is spent first,
  // then requests are denied until another batch could be free (else one ask per few units).
  // Only when the store is short: with another batch still free after this grant, pacing would deny
  // requests far below the limit (the grant is capped by `want`, not by what is free).
  const batch = s.request.batch ?? 0;
  const left = reply.avail - reply.kept - reply.granted - reply.direct;
  const paced = !starved && batch > 0 && left < batch;
  // Extension: served with units direct and nothing left over, the replica gave its ticket up; asking
  // before the others had their turn only queues it again (a round trip per unit at any load).
  const served = !starved && !paced && s.request.need > 0 && own === reply.direct && left < 1;
  k.exhaustedUntil =
    starved || paced || served ? recv + exhaustedWaitMs(env, s, reply, t, paced) : Number.NEGATIVE_INFINITY;
  noteDebt(k, hitsChargedNow(s.request, reply.now, k.minWindowMs), reply);
  k.doneSeq = s.seq;
  if (k.hasBoundarySnapshot() && k.boundaryAdmitted <= s.admittedAtSend) k.boundaryAdmitted = -1;
  snapshotHeaders(k, t);
  endSync(k);
}

/** Store time the window of width `windowMs` holding `t` started. */
function windowStart(t: number, windowMs: number): number {
  return Math.floor(t / windowMs) * windowMs;
}

/** A failed round: the hits go back to pending and are resent next time. */
export function revertRateSend(s: RateSend): void {
  s.key.pushed = s.pushedBefore - (droppedSoFar(s.key) - s.droppedAtSend);
  s.key.inflight = 0;
  endSync(s.key);
}
