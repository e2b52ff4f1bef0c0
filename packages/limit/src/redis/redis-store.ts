import { createHash } from "node:crypto";
import { StoreReplyError, StoreRequestError, StoreUnavailableError } from "../store/errors.js";
import { normalizeConcurrency, normalizeHeartbeat, normalizeRate } from "../store/request.js";
import type { RateRequest, RoundReply, RoundRequest, Store, WindowState } from "../store/types.js";
import { RedisCommandError } from "./errors.js";
import type { RedisCommand, RedisExec, RedisReply } from "./exec.js";
import { keySlot } from "./key-slot.js";
import { parseConcurrencyReply, parseHeartbeatReply, parseRateReplies } from "./reply.js";
import {
  CONCURRENCY_SCRIPT,
  HEARTBEAT_SCRIPT,
  type LuaScript,
  RATE_COMPACT_SLOTS,
  RATE_SCRIPT,
  SCRIPTS,
  scriptArgs,
} from "./scripts.js";

const NORMALIZE = { finiteLease: true } as const;

/** Rate keys one script call serves at most, by default. */
export const DEFAULT_KEYS_PER_CALL = 64;

/** RedisStore's options. */
export interface RedisStoreOptions {
  /** Rate keys one script call serves at most (default 64; 1: a call per key). */
  keysPerCall?: number;
}

/** SHA1 of a script's source, as Redis names it. */
export function scriptSha(source: string): string {
  return createHash("sha1").update(source, "utf8").digest("hex");
}

const SHAS = new Map<string, string>(SCRIPTS.map((s) => [s.name, scriptSha(s.source)]));

function shaOf(script: LuaScript<string, string>): string {
  return SHAS.get(script.name)!;
}

// Numbers travel as their shortest round-trip decimal, which Lua's tonumber reads back exactly.
function num(x: number): string {
  return String(x);
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && /noscript/i.test(err.message);
}

function evalsha<K extends string, A extends string>(
  script: LuaScript<K, A>,
  keys: Record<K, string>,
  argv: Record<A, string>,
  tail: readonly string[] = [],
): RedisCommand {
  const a = scriptArgs(script, keys, argv, tail);
  return { key: a.keys[0], args: ["EVALSHA", shaOf(script), String(a.keys.length), ...a.keys, ...a.argv] };
}

/**
 * Which rate requests share a script call (indexes into `rates`, in order): consecutive chunks of
 * `perCall` on a single Redis; on a cluster, keys of one hash slot only.
 */
function rateCalls(rates: readonly RateRequest[], singleNode: boolean, perCall: number): number[][] {
  const calls: number[][] = [];
  if (singleNode) {
    for (let i = 0; i < rates.length; i += perCall) {
      const call: number[] = [];
      for (let j = i; j < Math.min(i + perCall, rates.length); j++) call.push(j);
      calls.push(call);
    }
    return calls;
  }
  const open = new Map<number, number[]>();
  rates.forEach((r, i) => {
    const slot = perCall > 1 ? keySlot(r.key) : -1;
    let call = open.get(slot);
    if (call === undefined || call.length >= perCall) {
      call = [];
      calls.push(call);
      if (perCall > 1) open.set(slot, call);
    }
    call.push(i);
  });
  return calls;
}

/** The settings a compact block takes from the block before it: the same policy, replica and lease. */
function sameSettings(a: RateRequest, b: RateRequest): boolean {
  if (a.alg !== b.alg || a.pod !== b.pod || a.allowance !== b.allowance) return false;
  if (a.replicas !== b.replicas || a.leaseTtlMs !== b.leaseTtlMs) return false;
  if (a.windows.length !== b.windows.length) return false;
  for (let i = 0; i < a.windows.length; i++) {
    const x = a.windows[i]!;
    const y = b.windows[i]!;
    if (x.limit !== y.limit || x.windowMs !== y.windowMs || x.burst !== y.burst) return false;
  }
  return true;
}

const COMPACT_MARKERS = RATE_COMPACT_SLOTS.map((_, n) => `=${n}`).concat(`=${RATE_COMPACT_SLOTS.length}`);

/** A key's compact block: `=<n>` and its first n values, the trailing ones at their default left out. */
function compactBlock(args: string[], r: RateRequest): void {
  let n: number = RATE_COMPACT_SLOTS.length;
  while (n > 1 && isDefault(r[RATE_COMPACT_SLOTS[n - 1] as Exclude<CompactSlot, "seen">])) n--;
  if (n === 1 && r.seen === undefined) n = 0;
  args.push(COMPACT_MARKERS[n]!);
  if (n > 0) args.push(seenText(r.seen));
  for (let i = 1; i < n; i++) {
    const v = r[RATE_COMPACT_SLOTS[i] as Exclude<CompactSlot, "seen">];
    args.push(typeof v === "string" ? v : num(v ?? 0));
  }
}

type CompactSlot = (typeof RATE_COMPACT_SLOTS)[number];

function isDefault(v: number | string | undefined): boolean {
  return v === undefined || v === 0 || v === "";
}

/** The windows a replica saw, as the script reads them: `idx:cur:prev:tat` per window, comma-separated. */
function seenText(seen: readonly WindowState[] | undefined): string {
  if (seen === undefined) return "";
  let text = "";
  for (let i = 0; i < seen.length; i++) {
    const w = seen[i]!;
    text += `${i > 0 ? "," : ""}${num(w.idx)}:${num(w.cur)}:${num(w.prev)}:${num(w.tat)}`;
  }
  return text;
}

/**
 * One EVALSHA of the rate script for several keys: their keys, then one argument block per key; a
 * key whose settings are the previous key's sends the compact block (`=<n>` and its first n values).
 */
function rateCommand(rates: readonly RateRequest[], now: string): RedisCommand {
  // one array from the start: hundreds of arguments, not copied again to put the keys first
  const args: string[] = ["EVALSHA", shaOf(RATE_SCRIPT), String(rates.length)];
  for (const r of rates) args.push(r.key);
  let previous: RateRequest | undefined;
  for (const r of rates) {
    if (previous !== undefined && sameSettings(previous, r)) {
      compactBlock(args, r);
      continue;
    }
    previous = r;
    const tail: string[] = [];
    for (const w of r.windows) tail.push(num(w.limit), num(w.windowMs), num(w.burst));
    const a = scriptArgs(
      RATE_SCRIPT,
      { hash: r.key },
      {
        alg: String(r.alg),
        nw: String(r.windows.length),
        pod: r.pod,
        hits: num(r.hits),
        unused: num(r.unused),
        want: num(r.want),
        need: num(r.need),
        allowance: num(r.allowance),
        replicas: num(r.replicas),
        ttl: num(r.leaseTtlMs),
        now,
        hitsOld: num(r.hitsOld),
        tOld: num(r.tOld),
        batch: num(r.batch ?? 0),
        pushId: r.pushId ?? "",
        pushTotal: num(r.pushTotal ?? 0),
        head: num(r.head ?? 0),
        seen: seenText(r.seen),
      },
      tail,
    );
    for (const x of a.argv) args.push(x);
  }
  return { key: rates[0]!.key, args };
}

/**
 * The Store contract on Redis (see docs/protocol.md#s3-4): one pipeline per round (releases, rate
 * script calls of up to `keysPerCall` keys each, concurrency scripts, heartbeat), scripts run by SHA
 * after one SCRIPT LOAD pipeline on first use, reloaded and retried once when Redis has lost them
 * (NOSCRIPT). Store time is Redis TIME unless the round gives `now`. Works on Redis Cluster: every
 * command touches one hash slot (all keys of one subject share a hash tag, and a script call serves
 * several subjects only when they share a slot or `exec.singleNode` says there is one Redis).
 */
export class RedisStore implements Store {
  private loading: Promise<void> | undefined;
  private readonly keysPerCall: number;

  /**
   * `options.keysPerCall`: rate keys one script call serves at most (default 64; 1 sends one call per
   * key). Keys share a call only when `exec.singleNode` says one Redis serves every key, or when
   * they share a Redis Cluster hash slot.
   */
  constructor(
    private readonly exec: RedisExec,
    options: RedisStoreOptions = {},
  ) {
    const n = options.keysPerCall ?? DEFAULT_KEYS_PER_CALL;
    if (!Number.isInteger(n) || n < 1) {
      throw new StoreRequestError("keysPerCall", `must be a whole number >= 1, got ${String(n)}`);
    }
    this.keysPerCall = n;
  }

  async round(request: RoundRequest): Promise<RoundReply> {
    const given = request.now;
    const now = given !== undefined && given > 0 && Number.isFinite(given) ? num(given) : "0";
    const rates = request.rates.map((r) => normalizeRate(r, NORMALIZE));
    const concurrency = request.concurrency.map((c) => normalizeConcurrency(c, NORMALIZE));
    const heartbeat = request.heartbeat ? normalizeHeartbeat(request.heartbeat) : undefined;

    const commands: RedisCommand[] = [];
    for (const r of request.releases) {
      commands.push({ key: r.key, args: ["HDEL", r.key, `L:${r.pod}`, `Q:${r.pod}`, r.pod] });
    }
    const calls = rateCalls(rates, this.exec.singleNode === true, this.keysPerCall);
    for (const call of calls)
      commands.push(
        rateCommand(
          call.map((i) => rates[i]!),
          now,
        ),
      );
    for (const c of concurrency) {
      commands.push(
        evalsha(
          CONCURRENCY_SCRIPT,
          { hash: c.key },
          {
            pod: c.pod,
            active: num(c.active),
            unused: num(c.unused),
            want: num(c.want),
            need: num(c.need),
            max: num(c.max),
            allowance: num(c.allowance),
            replicas: num(c.replicas),
            ttl: num(c.leaseTtlMs),
            now,
          },
        ),
      );
    }
    if (heartbeat) {
      commands.push(
        evalsha(
          HEARTBEAT_SCRIPT,
          { registry: heartbeat.key },
          { pod: heartbeat.pod, window: num(heartbeat.windowMs), leave: heartbeat.leave ? "1" : "0", now },
        ),
      );
    }
    if (commands.length === 0) return { rates: [], concurrency: [] };

    const replies = await this.run(commands);
    let at = request.releases.length;
    const rateReplies: RoundReply["rates"] = new Array(rates.length);
    for (const call of calls) {
      const got = parseRateReplies(
        replies[at++]!,
        call.map((i) => rates[i]!.windows.length),
      );
      call.forEach((i, j) => {
        rateReplies[i] = got[j]!;
      });
    }
    const reply: RoundReply = {
      rates: rateReplies,
      concurrency: concurrency.map(() => parseConcurrencyReply(replies[at++]!)),
    };
    if (heartbeat) reply.heartbeat = parseHeartbeatReply(replies[at++]!);
    return reply;
  }

  /** Loads the scripts now (otherwise the first round does). */
  async load(): Promise<void> {
    this.loading = undefined;
    await this.ensureLoaded();
  }

  private ensureLoaded(): Promise<void> {
    this.loading ??= this.loadScripts().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async loadScripts(): Promise<void> {
    const replies = await this.pipeline(SCRIPTS.map((s) => ({ args: ["SCRIPT", "LOAD", s.source] })));
    SCRIPTS.forEach((s, i) => {
      const got = replies[i];
      if (got instanceof Error) throw new RedisCommandError("SCRIPT LOAD", i, got);
      if (got !== shaOf(s)) {
        throw new StoreReplyError(
          `RedisStore: SCRIPT LOAD of ${s.name} answered ${String(got)}, not its SHA1`,
        );
      }
    });
  }

  // Runs a round's pipeline; commands that found no script are retried once after a reload (they did
  // not run, so retrying them alone never applies anything twice).
  private async run(commands: RedisCommand[]): Promise<RedisReply[]> {
    await this.ensureLoaded();
    let replies: RedisReply[];
    try {
      replies = await this.pipeline(commands);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      await this.load();
      replies = await this.pipeline(commands);
    }
    const missing: number[] = [];
    replies.forEach((r, i) => {
      if (isNoScript(r)) missing.push(i);
    });
    if (missing.length > 0) {
      await this.load();
      const again = await this.pipeline(missing.map((i) => commands[i]!));
      missing.forEach((i, j) => {
        replies[i] = again[j]!;
      });
    }
    replies.forEach((r, i) => {
      if (r instanceof Error) throw new RedisCommandError(commands[i]!.args[0]!, i, r);
    });
    return replies;
  }

  private async pipeline(commands: RedisCommand[]): Promise<RedisReply[]> {
    let replies: RedisReply[];
    try {
      replies = await this.exec.pipeline(commands);
    } catch (err) {
      if (isNoScript(err)) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new StoreUnavailableError(`RedisStore: the round trip failed: ${message}`, { cause: err });
    }
    if (!Array.isArray(replies) || replies.length !== commands.length) {
      const got = Array.isArray(replies) ? replies.length : typeof replies;
      throw new StoreReplyError(`RedisStore: ${commands.length} commands sent, ${got} replies received`);
    }
    return replies;
  }
}
