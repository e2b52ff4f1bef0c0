import type { Clock } from "../clock/clock.js";
import { sleep } from "../clock/sleep.js";
import { systemClock } from "../clock/system-clock.js";
import {
  apply,
  applyPast,
  COUNT_MAX,
  capacity,
  emptyWindow,
  keepSeen,
  saturatingAdd,
  usage,
} from "./algorithm.js";
import { StoreUnavailableError } from "./errors.js";
import { grantStep } from "./grant.js";
import { LeaseTable } from "./lease-table.js";
import { leavesPool, poolGrantStep, setsPool, takesPool } from "./pool.js";
import { copyState, RateAnswer } from "./rate-answer.js";
import {
  normalizeConcurrency,
  normalizeHeartbeat,
  normalizeRate,
  rateKeyTtlMs,
  unchargedHits,
} from "./request.js";
import { TimeQueue } from "./time-queue.js";
import { served, type Turn, turnsAhead, turnTtlMs } from "./turns.js";
import type {
  ConcurrencyReply,
  ConcurrencyRequest,
  HeartbeatReply,
  HeartbeatRequest,
  RateReply,
  RateRequest,
  RoundReply,
  RoundRequest,
  Store,
  WindowState,
} from "./types.js";

/** Units held in one store key until `expiry` (store ms): the pool kept for a large request. */
interface Lease {
  credit: number;
  expiry: number;
}

/** What expires by time, as a Redis key with a TTL would. */
interface Expiring {
  /** Store ms after which the key is gone, as PEXPIRE would drop it. */
  expiresAt: number;
  /** Waiting in the expiry queue (at or before `expiresAt`). */
  queued?: boolean;
  key?: string;
  home?: Map<string, Expiring>;
}

interface RateEntry extends Expiring {
  windows: WindowState[];
  leases: LeaseTable;
  /** Replicas waiting for freed units (made on the first ticket), and the next ticket (Redis: `Q:<pod>`, `q`). */
  turns: Map<string, Turn> | undefined;
  nextTicket: number;
  /** Push totals remembered per `<pushId>:<pod>` (Redis: `P:<pushId>:<pod>`), made on the first push id. */
  pushes: LeaseTable | undefined;
  /** Units kept free for the next ask with a waiting request this large (Redis: `h`), or undefined. */
  pool: Lease | undefined;
}

interface SlotEntry extends Expiring {
  leases: LeaseTable;
}

interface Registry extends Expiring {
  /** pod -> last heartbeat (store ms). */
  pods: Map<string, number>;
}

// Expired keys are dropped on access, and by time: each key waits in a queue of one-second slots.
const EXPIRY_SLOT_MS = 1000;

const NORMALIZE = { finiteLease: false } as const;

/**
 * The in-process reference store (see docs/protocol.md#s3-5, #s3-7, #s3-8 and #s5): the same three
 * operations as RedisStore's scripts, with identical replies. Used by the simulation and as the oracle
 * of the parity tests (the synchronous `rate`/`concurrency`/`heartbeat` methods take an explicit time).
 * Keys expire like Redis keys would if store time were the server's clock.
 */
export class MemoryStore implements Store {
  private readonly rateKeys = new Map<string, RateEntry>();
  private readonly slotKeys = new Map<string, SlotEntry>();
  private readonly registries = new Map<string, Registry>();
  private failing = false;
  private latencyMs = 0;
  private roundCount = 0;
  private readonly expiry = new TimeQueue<Expiring>(EXPIRY_SLOT_MS);

  constructor(private readonly clock: Clock = systemClock) {}

  /** Keys held now (rate, concurrency, registries), expired ones not yet dropped included. */
  get keyCount(): number {
    return this.rateKeys.size + this.slotKeys.size + this.registries.size;
  }

  /** Number of `round()` calls so far, failed ones included (store round trips). */
  get rounds(): number {
    return this.roundCount;
  }

  /** While failing, `round()` rejects with StoreUnavailableError (the direct methods keep working). */
  setFailing(failing: boolean): void {
    this.failing = failing;
  }

  /** Each `round()` takes this long on the store's clock: half before it runs, half after (a slow store). */
  setLatency(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`MemoryStore.setLatency: ms must be a finite number >= 0, got ${ms}`);
    }
    this.latencyMs = ms;
  }

  async round(request: RoundRequest): Promise<RoundReply> {
    this.roundCount++;
    const half = this.latencyMs / 2;
    if (half > 0) await sleep(this.clock, half);
    if (this.failing) throw new StoreUnavailableError("MemoryStore: the store is failing (setFailing(true))");
    const given = request.now;
    const now = given !== undefined && given > 0 && Number.isFinite(given) ? given : this.clock.unixMs();
    for (const r of request.releases) this.release(r.key, r.pod);
    const rates = request.rates.map((r) => this.rate(r, now));
    const concurrency = request.concurrency.map((c) => this.concurrency(c, now));
    const reply: RoundReply = { rates, concurrency };
    if (request.heartbeat) reply.heartbeat = this.heartbeat(request.heartbeat, now);
    if (half > 0) await sleep(this.clock, half);
    return reply;
  }

  /** The rate script at store time `now`: push hits, keep or give back credit, grant, admit waiters. */
  rate(request: RateRequest, now: number): RateReply {
    const req = normalizeRate(request, NORMALIZE);
    this.tick(now);
    let entry = this.liveRate(req.key, now);
    if (!entry) {
      entry = {
        windows: [],
        leases: new LeaseTable(),
        turns: undefined,
        nextTicket: 1,
        pushes: undefined,
        pool: undefined,
        expiresAt: now,
      };
      this.rateKeys.set(req.key, entry);
    }
    // A hash written for another set of windows (a hash collision of configs) starts over.
    if (entry.windows.length !== req.windows.length) entry.windows = req.windows.map(() => emptyWindow());
    const { alg, windows } = req;
    const states = entry.windows;
    // counts this store lost (restarted empty) come back from what the replica saw of them
    if (req.seen !== undefined) for (let i = 0; i < states.length; i++) keepSeen(states[i]!, req.seen[i]!);

    const held = entry.leases.collect(req.pod, now);
    const head = req.head ?? 0;
    const pool = livePool(entry, now);
    // one unit (a batch, when asking for one) stays held for each replica that has waited longer,
    // except from an ask that may take the pool (its turn)
    if (entry.turns) {
      const ahead = turnsAhead(entry.turns, req.pod, now) * Math.max(1, req.batch ?? 0);
      if (!takesPool(head, pool)) held.others = saturatingAdd(held.others, ahead);
    }
    const { hits, hitsOld } = this.unseenHits(entry, req, now);
    // a replica dates admits at the latest its clock allows: never later than the store's now
    const tPast = Math.min(req.tOld, now);
    for (let i = 0; i < windows.length; i++) {
      const spec = windows[i]!;
      const st = states[i]!;
      applyPast(alg, spec, st, tPast, hitsOld);
      apply(alg, spec, st, now, hits);
    }
    let low = Number.POSITIVE_INFINITY;
    for (let i = 0; i < windows.length; i++) {
      const spec = windows[i]!;
      low = Math.min(low, capacity(alg, spec) - usage(alg, spec, states[i]!, now) - held.others);
    }
    let avail = Math.floor(low);
    if (leavesPool(head, pool)) {
      held.others = saturatingAdd(held.others, pool);
      avail -= pool;
    }
    const kept = held.mineLive ? Math.min(req.unused, held.mine) : Math.min(req.unused, Math.max(avail, 0));
    const { granted, direct } = poolGrantStep(
      avail - kept,
      req.want,
      req.need,
      req.allowance,
      req.replicas,
      req.batch ?? 0,
      head,
      pool,
      kept,
    );
    // served: out of line; left short with requests waiting: in line
    if (served(req.batch ?? 0, req.want, req.need, granted, direct)) entry.turns?.delete(req.pod);
    else if (req.need > 0) {
      entry.turns ??= new Map();
      const ticket = entry.turns.get(req.pod)?.ticket ?? entry.nextTicket++;
      entry.turns.set(req.pod, { ticket, expiry: now + turnTtlMs(req.leaseTtlMs) });
    }
    if (direct > 0) {
      for (let i = 0; i < windows.length; i++) apply(alg, windows[i]!, states[i]!, now, direct);
    }
    if (setsPool(alg, head, pool, kept + granted + direct))
      entry.pool = { credit: head, expiry: now + turnTtlMs(req.leaseTtlMs) };
    const mine = kept + granted;
    if (mine > 0) entry.leases.hold(req.pod, mine, now + req.leaseTtlMs);
    else entry.leases.delete(req.pod);
    entry.expiresAt = now + rateKeyTtlMs(windows, req.leaseTtlMs);
    this.expireLater(this.rateKeys, req.key, entry);
    return new RateAnswer(now, kept, avail, granted, direct, held.others, states.map(copyState));
  }

  /** A resent push is charged once (as the rate script's step 2); expired push totals go. */
  private unseenHits(entry: RateEntry, req: RateRequest, now: number): { hits: number; hitsOld: number } {
    entry.pushes?.dropExpired(now);
    if (!req.pushId) return { hits: req.hits, hitsOld: req.hitsOld };
    entry.pushes ??= new LeaseTable();
    const name = `${req.pushId}:${req.pod}`;
    const total = req.pushTotal ?? 0;
    const remembered = entry.pushes.creditOf(name);
    entry.pushes.hold(name, Math.max(remembered ?? 0, total), now + req.leaseTtlMs);
    return unchargedHits(remembered, total, req.hits, req.hitsOld);
  }

  /** The concurrency script at `now`: an absolute report of active slots, then keep, grant, admit. */
  concurrency(request: ConcurrencyRequest, now: number): ConcurrencyReply {
    const req = normalizeConcurrency(request, NORMALIZE);
    this.tick(now);
    let entry = this.liveSlots(req.key, now);
    const leases = entry?.leases ?? new LeaseTable();
    const held = leases.collect(req.pod, now);
    const avail = Math.floor(req.max - held.others - req.active);
    const kept = held.mineLive
      ? Math.min(req.unused, Math.max(0, held.mine - req.active))
      : Math.min(req.unused, Math.max(0, avail));
    const { granted, direct } = grantStep(avail - kept, req.want, req.need, req.allowance, req.replicas);
    const mine = Math.min(req.active + kept + granted + direct, COUNT_MAX);
    entry ??= { leases, expiresAt: now };
    if (mine > 0) {
      leases.hold(req.pod, mine, now + req.leaseTtlMs);
      entry.expiresAt = now + Math.floor(2 * req.leaseTtlMs);
    } else leases.delete(req.pod);
    // An empty hash does not exist in Redis; neither does it here.
    if (leases.size === 0) this.slotKeys.delete(req.key);
    else {
      this.slotKeys.set(req.key, entry);
      this.expireLater(this.slotKeys, req.key, entry);
    }
    return { now, kept, granted, direct, others: held.others };
  }

  /** The heartbeat script at `now`: register (or leave), forget silent replicas, count the live ones. */
  heartbeat(request: HeartbeatRequest, now: number): HeartbeatReply {
    const req = normalizeHeartbeat(request);
    this.tick(now);
    let reg = this.liveRegistry(req.key, now);
    if (!reg) {
      reg = { pods: new Map(), expiresAt: now };
      this.registries.set(req.key, reg);
    }
    if (req.leave) reg.pods.delete(req.pod);
    else reg.pods.set(req.pod, now);
    const cutoff = now - req.windowMs;
    for (const [pod, seen] of reg.pods) if (seen <= cutoff) reg.pods.delete(pod);
    const replicas = Math.max(1, reg.pods.size);
    if (reg.pods.size === 0) this.registries.delete(req.key);
    else {
      reg.expiresAt = now + Math.floor(10 * req.windowMs);
      this.expireLater(this.registries, req.key, reg);
    }
    return { now, replicas };
  }

  /** Drops `pod`'s lease fields (rate and concurrency) from `key`. */
  release(key: string, pod: string): void {
    const rate = this.rateKeys.get(key);
    if (rate) {
      rate.leases.delete(pod);
      rate.turns?.delete(pod);
    }
    const slots = this.slotKeys.get(key);
    if (slots) {
      slots.leases.delete(pod);
      if (slots.leases.size === 0) this.slotKeys.delete(key);
    }
  }

  private liveRate(key: string, now: number): RateEntry | undefined {
    const e = this.rateKeys.get(key);
    if (e && now > e.expiresAt) {
      this.rateKeys.delete(key);
      return undefined;
    }
    return e;
  }

  private liveSlots(key: string, now: number): SlotEntry | undefined {
    const e = this.slotKeys.get(key);
    if (e && now > e.expiresAt) {
      this.slotKeys.delete(key);
      return undefined;
    }
    return e;
  }

  private liveRegistry(key: string, now: number): Registry | undefined {
    const e = this.registries.get(key);
    if (e && now > e.expiresAt) {
      this.registries.delete(key);
      return undefined;
    }
    return e;
  }

  // Drops the keys whose time is up; what is still live waits again until its (later) expiry.
  private tick(now: number): void {
    this.expiry.popDue(now, (e) => {
      e.queued = false;
      if (e.home?.get(e.key!) !== e) return true;
      if (now > e.expiresAt) e.home.delete(e.key!);
      else this.expireLater(e.home, e.key!, e);
      return true;
    });
  }

  private expireLater(home: Map<string, Expiring>, key: string, e: Expiring): void {
    if (e.queued) return;
    e.queued = true;
    e.key = key;
    e.home = home;
    // the slot after expiry: popped only once the key is certainly gone (now > expiresAt)
    this.expiry.add(e, e.expiresAt + EXPIRY_SLOT_MS);
  }
}

/** The live pool's size (0: none); an expired one goes. */
function livePool(entry: RateEntry, now: number): number {
  const p = entry.pool;
  if (p === undefined) return 0;
  if (p.expiry <= now) {
    entry.pool = undefined;
    return 0;
  }
  return p.credit;
}
