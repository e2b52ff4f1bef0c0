import type { Breakers, SharedBreakerLink, Tier, TransitionEvent } from "./breakers.js";
import { BreakerConfigError } from "./errors.js";

/** One pipelined command; structurally @resil/limit's `RedisCommand`, so its adapters fit. */
export interface SharedCommand {
  readonly key?: string;
  readonly args: readonly string[];
}

/** What the shared state needs of a Redis client: `IoRedisExec` / `NodeRedisExec` of the store packages fit. */
export interface SharedRedisExec {
  pipeline(commands: readonly SharedCommand[]): Promise<unknown[]>;
}

export interface RedisSharedBreakersOptions {
  /** Names the shared state: replicas of one service share their breakers. */
  service: string;
  /** This replica, as the holder of a probe. Default: a random id. */
  podId?: string;
  /** How often local changes are pushed and others' are read, ms. Default 100. */
  syncIntervalMs?: number;
  /** How long the cluster's one probe may run before another replica may probe, ms. Default 30,000. */
  probeTtlMs?: number;
  /** A failed round trip (the breakers then decide locally until Redis answers). A throwing hook is ignored. */
  onError?: (error: unknown) => void;
}

const SEP = "|";
const MAX_PENDING = 10_000;
const HASH_TTL_MS = "3600000";

/**
 * Breaker state shared through Redis: an open on one replica is seen by every replica within one sync,
 * and an expired open lets exactly one probe through cluster-wide (the replica that took the probe key).
 * Layout (one hash slot per service): hash `resil:brk:{service}` field `tier|key` = open-until (Unix ms);
 * string `resil:brk:{service}:probe:tier|key` = the probing replica, with a TTL.
 */
export class RedisSharedBreakers implements SharedBreakerLink {
  private readonly hash: string;
  private readonly podId: string;
  private readonly syncIntervalMs: number;
  private readonly probeTtlMs: number;
  private readonly onError: ((error: unknown) => void) | undefined;
  private readonly tiers = new Map<Tier, Breakers>();
  /** Fields open here (locally or from others), with their open-until in Unix ms. */
  private readonly open = new Map<string, number>();
  /** Fields whose cluster probe this replica holds. */
  private readonly probing = new Set<string>();
  private pending: SharedCommand[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private failing = false;

  constructor(
    private readonly exec: SharedRedisExec,
    options: RedisSharedBreakersOptions,
  ) {
    if (typeof options.service !== "string" || options.service === "" || /[{}]/.test(options.service))
      throw new BreakerConfigError("service", "must be a non-empty string without braces");
    this.hash = `resil:brk:{${options.service}}`;
    this.podId = options.podId ?? Math.random().toString(36).slice(2);
    this.syncIntervalMs = positive("syncIntervalMs", options.syncIntervalMs ?? 100);
    this.probeTtlMs = positive("probeTtlMs", options.probeTtlMs ?? 30_000);
    this.onError = options.onError;
  }

  attach(breakers: Breakers): void {
    this.tiers.set(breakers.tier, breakers);
  }

  /** Without an answer from Redis the breakers decide alone; else only the holder of the probe key probes. */
  mayProbe(tier: Tier, key: string): boolean {
    return this.failing || this.probing.has(field(tier, key));
  }

  changed(event: TransitionEvent, untilMs: number | undefined): void {
    const f = field(event.tier, event.key);
    if (event.to === "open" && untilMs !== undefined) {
      const until = Date.now() + (untilMs - performance.now());
      this.open.set(f, until);
      this.probing.delete(f);
      this.queue({ key: this.hash, args: ["HSET", this.hash, f, String(Math.round(until))] });
      this.queue({ key: this.hash, args: ["PEXPIRE", this.hash, HASH_TTL_MS] });
    } else if (event.to === "closed") {
      this.open.delete(f);
      this.queue({ key: this.hash, args: ["HDEL", this.hash, f] });
      if (this.probing.delete(f)) this.queue({ key: this.hash, args: ["DEL", this.probeKey(f)] });
    }
  }

  /** Starts the background sync (unref'd: it does not keep the process alive). */
  start(): void {
    if (this.timer !== undefined) return;
    const tick = () => {
      this.timer = setTimeout(() => void this.syncNow().finally(tick), this.syncIntervalMs);
      this.timer.unref?.();
    };
    tick();
  }

  /** Stops the background sync, after one last push of local changes. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.syncNow();
  }

  /** One round trip: push local changes, read everyone's opens, ask for the probes this replica needs. */
  syncNow(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const pushed = this.pending;
    this.pending = [];
    const now = Date.now();
    const wanted = [...this.open]
      .filter(([f, until]) => until <= now && !this.probing.has(f))
      .map(([f]) => f);
    const commands: SharedCommand[] = [...pushed, { key: this.hash, args: ["HGETALL", this.hash] }];
    for (const f of wanted) {
      const key = this.probeKey(f);
      commands.push({ key, args: ["SET", key, this.podId, "NX", "PX", String(this.probeTtlMs)] });
    }
    let replies: unknown[];
    try {
      replies = await this.exec.pipeline(commands);
    } catch (err) {
      this.fail(err, pushed);
      return;
    }
    const all = replies[pushed.length];
    if (all instanceof Error) {
      this.fail(all, pushed);
      return;
    }
    this.failing = false;
    wanted.forEach((f, i) => {
      if (replies[pushed.length + 1 + i] === "OK") this.probing.add(f);
    });
    this.apply(entries(all), now);
  }

  private apply(remote: Map<string, number>, now: number): void {
    for (const [f, until] of remote) {
      const [tier, key] = split(f);
      const breakers = this.tiers.get(tier);
      if (!breakers) continue;
      const known = this.open.get(f);
      if (known !== undefined && known >= until) continue;
      this.open.set(f, until);
      breakers.applyShared(key, { value: "open", ms: until - now });
    }
    for (const f of [...this.open.keys()]) {
      if (remote.has(f)) continue;
      const [tier, key] = split(f);
      this.open.delete(f);
      this.probing.delete(f);
      this.tiers.get(tier)?.applyShared(key, { value: "closed" });
    }
  }

  private fail(error: unknown, pushed: SharedCommand[]): void {
    this.failing = true;
    this.pending = [...pushed, ...this.pending].slice(-MAX_PENDING);
    try {
      this.onError?.(error);
    } catch {
      // observability must not change the breaker's behaviour
    }
  }

  private queue(command: SharedCommand): void {
    if (this.pending.length < MAX_PENDING) this.pending.push(command);
  }

  private probeKey(f: string): string {
    return `${this.hash}:probe:${f}`;
  }
}

function field(tier: Tier, key: string): string {
  return `${tier}${SEP}${key}`;
}

function split(f: string): [Tier, string] {
  const i = f.indexOf(SEP);
  return [f.slice(0, i) as Tier, f.slice(i + 1)];
}

/** HGETALL as RESP2 clients hand it over: a flat [field, value, ...] list, or an object. */
function entries(reply: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const put = (f: unknown, v: unknown) => {
    const until = Number(v);
    if (typeof f === "string" && Number.isFinite(until)) out.set(f, until);
  };
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) put(reply[i], reply[i + 1]);
  else if (reply && typeof reply === "object") for (const [f, v] of Object.entries(reply)) put(f, v);
  return out;
}

function positive(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0 || v > 2_147_483_647)
    throw new BreakerConfigError(name, "must be a positive number of ms below 2^31");
  return v;
}
