import { type Clock, exactMonoMs } from "../clock/clock.js";
import { coarseClock } from "../clock/coarse-clock.js";
import { systemClock } from "../clock/system-clock.js";
import { StoreReplyError } from "../store/errors.js";
import type { Release, RoundReply, RoundRequest, Store } from "../store/types.js";
import { ConcurrencyKeyState } from "./concurrency-key.js";
import {
  applyConcurrencyReply,
  buildConcurrencySend,
  type ConcurrencySend,
  revertConcurrencySend,
} from "./concurrency-sync.js";
import { StoreTimeoutError } from "./errors.js";
import { farewell } from "./farewell.js";
import { SyncHistogram } from "./metrics.js";
import type { RateKeyState } from "./rate-key.js";
import { applyRateReply, buildRateSend, type RateSend, revertRateSend } from "./rate-sync.js";
import { collectDue } from "./schedule.js";
import { claim, endSync, type SyncEnv } from "./sync-maths.js";
import { SyncSchedule } from "./sync-schedule.js";

const SETTLED: Promise<void> = Promise.resolve();
/** While the store fails, the first probe waits this many ticks; later ones twice the last, at most heartbeatMs / 2. */
const PROBE_MIN_TICKS = 2;
/** The smallest cacheTtlMs a key can have (config.ts clamps to it): a stall shorter is no stall. */
const MIN_CACHE_TTL_MS = 50;

/** Resolves after the I/O callbacks of this event-loop iteration. */
function nextIteration(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The subjects a round picks keys from. */
export interface SubjectMaps {
  readonly rates: Map<string, RateKeyState>;
  readonly caps: Map<string, ConcurrencyKeyState>;
}

/** Sync rounds with the store: which keys go, one bounded round trip, replies applied or reverted. */
export class Exchange {
  /** After shutdown's final rounds no round starts and replies no longer renew credit. */
  closed = false;
  roundCount = 0;
  readonly syncSeconds = new SyncHistogram();
  /** Which keys are due, without scanning every key. */
  readonly schedule: SyncSchedule;
  /** The last background round took as many keys as a round holds: more may be due now. */
  lastRoundFull = false;
  /** Key syncs sent (rate and concurrency), for capacity figures. */
  keySyncs = 0;
  private lastHeartbeat = Number.NEGATIVE_INFINITY;
  /** lastOk of the stall `cutStalledCredit` looked at; past stallCutMs it scans the keys again. */
  private stallSince = Number.NaN;
  private stallCutMs = MIN_CACHE_TTL_MS;
  /** The smallest cacheTtlMs of the keys at the last scan. */
  private minTtlMs = MIN_CACHE_TTL_MS;
  private readonly realClock: boolean;

  constructor(
    private readonly env: SyncEnv,
    private readonly clock: Clock,
    private readonly store: Store | undefined,
    private readonly registry: string,
    private readonly subjects: SubjectMaps,
  ) {
    this.schedule = new SyncSchedule(env);
    this.realClock = clock === coarseClock || clock === systemClock;
  }

  /** Ms until the next heartbeat is due (0 when it is). */
  heartbeatDueIn(now: number): number {
    if (this.store === undefined) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.lastHeartbeat + this.env.options.heartbeatMs - now);
  }

  /** Collects due keys and runs one round trip (docs/protocol.md#s3-1); a round with nothing to say sends nothing. */
  // Not async: a round with nothing to send (most ticks) returns a settled promise without allocating one.
  round(force: boolean, heartbeat: boolean): Promise<void> {
    this.lastRoundFull = false;
    if (this.store === undefined || this.closed) return SETTLED;
    const { options } = this.env;
    const now = this.clock.monoMs();
    this.cutStalledCredit(now);
    // a failing store gets one probe per interval (docs/protocol.md#s4); the probe carries a heartbeat
    const probing = this.env.health.failing;
    if (!force && !this.env.health.mayProbe(now)) return SETTLED;
    const heartbeatDue = heartbeat || probing || now - this.lastHeartbeat >= options.heartbeatMs;
    const limit = options.maxKeysPerRound;
    const into = { rates: [] as RateKeyState[], caps: [] as ConcurrencyKeyState[] };
    if (force) collectDue(this.env, this.subjects, into, now, 1, force, limit);
    else this.lastRoundFull = this.schedule.collect(now, into, limit, heartbeatDue);
    if (into.rates.length + into.caps.length === 0 && !heartbeatDue) return SETTLED;
    // a heartbeat rides along once half its period has passed
    const withHeartbeat = heartbeatDue || now - this.lastHeartbeat >= options.heartbeatMs / 2;
    return this.send(into.rates, into.caps, withHeartbeat ? "join" : undefined, [], now);
  }

  /** Shutdown's last rounds: pushes, releases, leaving the registry (farewell.ts). */
  farewell(): Promise<void> {
    if (this.store === undefined) return SETTLED;
    return farewell(this.env, this.subjects, (rates, caps, heartbeat, releases) =>
      this.send(rates, caps, heartbeat, releases, this.clock.monoMs()),
    );
  }

  /**
   * A kick: syncs one key now, outside the round limit (one sync per key in flight). Kicks of one
   * event-loop iteration go together, in rounds of at most maxKeysPerRound keys.
   */
  syncAlone(key: RateKeyState | ConcurrencyKeyState): Promise<void> {
    if (this.store === undefined || this.closed) return SETTLED;
    if (!this.env.health.mayProbe(this.clock.monoMs()) || !claim(key)) return SETTLED;
    if (key instanceof ConcurrencyKeyState) this.kickedCaps.push(key);
    else this.kickedRates.push(key);
    // On the real clock, after the I/O callbacks of this loop iteration (setImmediate): the requests
    // of every socket read in one poll share the round and its script calls. On a test clock, at
    // the next microtask (simulations step time without running the event loop).
    this.kicksSent ??= (this.realClock ? nextIteration() : Promise.resolve()).then(() => this.sendKicks());
    return this.kicksSent;
  }

  private kickedRates: RateKeyState[] = [];
  private kickedCaps: ConcurrencyKeyState[] = [];
  private kicksSent: Promise<void> | undefined;

  private async sendKicks(): Promise<void> {
    const rates = this.kickedRates;
    const caps = this.kickedCaps;
    this.kickedRates = [];
    this.kickedCaps = [];
    this.kicksSent = undefined;
    if (this.closed) {
      for (const k of rates) endSync(k);
      for (const c of caps) endSync(c);
      return;
    }
    const now = this.clock.monoMs();
    const limit = this.env.options.maxKeysPerRound;
    const sends: Promise<void>[] = [];
    for (let i = 0; i < Math.max(rates.length, caps.length); i += limit) {
      sends.push(this.send(rates.slice(i, i + limit), caps.slice(i, i + limit), undefined, [], now));
    }
    await Promise.all(sends);
  }

  /**
   * One round trip for claimed keys: build, send (bounded by roundTimeoutMs), apply or revert
   * (docs/protocol.md#s3-1 to #s3-3, #s3-8, #s4). Never rejects.
   */
  async send(
    rateKeys: RateKeyState[],
    capKeys: ConcurrencyKeyState[],
    heartbeat: "join" | "leave" | undefined,
    releases: Release[],
    now: number,
  ): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    const { env } = this;
    const rates = rateKeys.map((k) => buildRateSend(env, k, now));
    const caps = capKeys.map((c) => buildConcurrencySend(env, c, now));
    const request: RoundRequest = {
      releases,
      rates: rates.map((s) => s.request),
      concurrency: caps.map((s) => s.request),
    };
    if (heartbeat !== undefined) {
      request.heartbeat = {
        key: this.registry,
        pod: env.options.podId,
        windowMs: 3 * env.options.heartbeatMs,
        leave: heartbeat === "leave",
      };
      this.lastHeartbeat = now;
    }
    this.roundCount++;
    this.keySyncs += rates.length + caps.length;
    let reply: RoundReply;
    const probe = env.health.failing;
    env.health.probeSent();
    const pending = env.health.roundStarted(now);
    // the round trip is timed exactly: the coarse clock may give the reply the send's reading
    const sent = exactMonoMs(this.clock);
    try {
      reply = await boundedRoundTrip(this.clock, store, request, env.options.roundTimeoutMs);
      checkReply(request, reply);
    } catch (err) {
      env.health.roundEnded(pending);
      const failedAt = this.clock.monoMs();
      if (env.health.recordFailure(err, failedAt)) this.distrustCredit();
      env.health.probeFailed(
        failedAt,
        probe,
        PROBE_MIN_TICKS * env.options.tickMs,
        env.options.heartbeatMs / 2,
      );
      for (const s of rates) revertRateSend(s);
      for (const s of caps) revertConcurrencySend(s);
      this.reschedule(rates, caps, this.clock.monoMs());
      return;
    }
    env.health.roundEnded(pending);
    const recv = exactMonoMs(this.clock);
    this.syncSeconds.observe((recv - sent) / 1000);
    const storeNow = reply.heartbeat?.now ?? reply.rates[0]?.now ?? reply.concurrency[0]?.now;
    const outageEnded = env.health.recordReply(sent, recv, storeNow);
    if (reply.heartbeat !== undefined && heartbeat === "join") {
      env.health.setReplicas(reply.heartbeat.replicas, recv, 3 * env.options.heartbeatMs);
    }
    for (let i = 0; i < rates.length; i++) applyRateReply(env, rates[i]!, reply.rates[i]!, recv, this.closed);
    for (let i = 0; i < caps.length; i++)
      applyConcurrencyReply(env, caps[i]!, reply.concurrency[i]!, this.closed);
    // Credit from before the outage, or granted by a round built before it, counts nothing the
    // others admitted meanwhile: recovery is fail-static until the store second ends (docs/protocol.md#s4).
    if (outageEnded) for (const k of this.subjects.rates.values()) if (!k.localOnly) k.validUntil = recv;
    this.reschedule(rates, caps, recv);
  }

  // Each key synced waits in the schedule for its next due time.
  private reschedule(rates: RateSend[], caps: ConcurrencySend[], now: number): void {
    if (this.closed) return;
    for (const s of rates) this.schedule.afterSync(s.key, now);
    for (const s of caps) this.schedule.afterCapSync(s.key, now);
  }

  /**
   * Extension: as the store starts failing, credit is trusted only until the window it was taken in
   * ends. Fail-static's local share knows nothing of it, so credit carried into a later window would
   * be admitted on top of the share.
   */
  private distrustCredit(): void {
    const { offset } = this.env.health;
    for (const k of this.subjects.rates.values()) {
      if (!k.localOnly) k.validUntil = Math.min(k.validUntil, k.creditWindowEnd - offset);
    }
  }

  /**
   * A stall (a round unanswered past a key's cacheTtlMs) is an outage too (docs/protocol.md#s4): the
   * key's credit lapses with its window. Decisions from credit never look at the store, so the
   * background loop does it; a key scan only once the stall passes the smallest cacheTtlMs not yet cut.
   */
  private cutStalledCredit(now: number): void {
    const { health } = this.env;
    if (health.lastOk !== this.stallSince) {
      this.stallSince = health.lastOk;
      this.stallCutMs = this.minTtlMs;
    }
    const stallMs = health.stallMs(now);
    if (stallMs <= this.stallCutMs) return;
    let minTtl = Number.POSITIVE_INFINITY;
    let nextCut = Number.POSITIVE_INFINITY;
    for (const k of this.subjects.rates.values()) {
      if (k.localOnly) continue;
      const ttl = k.policy.cacheTtlMs;
      minTtl = Math.min(minTtl, ttl);
      if (stallMs > ttl) k.validUntil = Math.min(k.validUntil, k.creditWindowEnd - health.offset);
      else nextCut = Math.min(nextCut, ttl);
    }
    this.minTtlMs = Number.isFinite(minTtl) ? minTtl : MIN_CACHE_TTL_MS;
    this.stallCutMs = nextCut;
  }
}

/** `store.round(request)`, rejected with StoreTimeoutError after `ms`. */
function boundedRoundTrip(
  clock: Clock,
  store: Store,
  request: RoundRequest,
  ms: number,
): Promise<RoundReply> {
  return new Promise<RoundReply>((resolve, reject) => {
    // A timer later than its whole budget means the event loop was blocked: timers run before
    // sockets are read, so the reply may be waiting. The round gets its budget once more.
    const due = clock.monoMs() + ms;
    const expire = () => {
      if (clock.monoMs() - due > ms && !extended) {
        extended = true;
        timer = clock.setTimer(ms, expire, { unref: true });
      } else reject(new StoreTimeoutError(ms));
    };
    let extended = false;
    let timer = clock.setTimer(ms, expire, { unref: true });
    let pending: Promise<RoundReply>;
    try {
      pending = store.round(request);
    } catch (err) {
      timer.cancel();
      reject(err);
      return;
    }
    pending.then(
      (reply) => {
        timer.cancel();
        resolve(reply);
      },
      (err: unknown) => {
        timer.cancel();
        reject(err);
      },
    );
  });
}

/** A reply must answer every request of the round, window for window. */
function checkReply(request: RoundRequest, reply: RoundReply): void {
  if (
    reply.rates.length !== request.rates.length ||
    reply.concurrency.length !== request.concurrency.length ||
    (request.heartbeat !== undefined && reply.heartbeat === undefined)
  ) {
    throw new StoreReplyError(
      `store replied ${reply.rates.length}/${reply.concurrency.length} for ${request.rates.length}/${request.concurrency.length} requests`,
    );
  }
  request.rates.forEach((r, i) => {
    if (reply.rates[i]!.windows.length !== r.windows.length) {
      throw new StoreReplyError(`store replied ${reply.rates[i]!.windows.length} windows for ${r.key}`);
    }
  });
}
