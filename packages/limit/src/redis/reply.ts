import { StoreReplyError } from "../store/errors.js";
import type { ConcurrencyReply, HeartbeatReply, RateReply, WindowState } from "../store/types.js";
import type { RedisReply, RedisValue } from "./exec.js";

/**
 * Reading script replies: exact lengths, numbers from integers or strings, and negative counts read as
 * 0 (only `avail` is signed), as the original read them into unsigned integers.
 */

function number(value: RedisReply | undefined, field: string): number {
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "bigint") n = Number(value);
  else if (typeof value === "string" && value.trim() !== "") n = Number(value);
  else n = Number.NaN;
  if (!Number.isFinite(n)) {
    throw new StoreReplyError(`RedisStore: ${field} is not a number: ${JSON.stringify(String(value))}`);
  }
  return n;
}

function count(value: RedisReply | undefined, field: string): number {
  return Math.max(0, number(value, field));
}

function array(value: RedisReply, what: string, length: (n: number) => boolean): RedisReply[] {
  if (!Array.isArray(value) || !length(value.length)) {
    const got = Array.isArray(value) ? `${value.length} entries` : typeof value;
    throw new StoreReplyError(`RedisStore: unexpected ${what} reply shape (${got})`);
  }
  return value;
}

/** `[now, kept, avail, granted, direct, others, (idx, cur, prev, tat) x windows]`, exactly 6 + 4n long. */
export function parseRateReply(value: RedisReply, windows: number): RateReply {
  const r = array(value, "rate", (n) => n === 6 + 4 * windows);
  const states: WindowState[] = [];
  for (let i = 0; i < windows; i++) {
    const at = 6 + 4 * i;
    states.push({
      idx: count(r[at], `windows[${i}].idx`),
      cur: count(r[at + 1], `windows[${i}].cur`),
      prev: count(r[at + 2], `windows[${i}].prev`),
      tat: number(r[at + 3], `windows[${i}].tat`),
    });
  }
  return {
    now: number(r[0], "now"),
    kept: count(r[1], "kept"),
    avail: number(r[2], "avail"),
    granted: count(r[3], "granted"),
    direct: count(r[4], "direct"),
    others: count(r[5], "others"),
    windows: states,
  };
}

/**
 * One rate script call's reply for several keys: each key's reply (6 + 4 nw entries, `windows[j]`
 * being its nw) concatenated in key order; the total length is exact.
 */
export function parseRateReplies(value: RedisReply, windows: readonly number[]): RateReply[] {
  let total = 0;
  for (const nw of windows) total += 6 + 4 * nw;
  const r = array(value, "rate", (n) => n === total) as RedisValue[];
  if (windows.length === 1) return [parseRateReply(r, windows[0]!)];
  const out: RateReply[] = [];
  let at = 0;
  for (const nw of windows) {
    out.push(parseRateReply(r.slice(at, at + 6 + 4 * nw), nw));
    at += 6 + 4 * nw;
  }
  return out;
}

/** `[now, kept, granted, direct, others]`. */
export function parseConcurrencyReply(value: RedisReply): ConcurrencyReply {
  const r = array(value, "concurrency", (n) => n === 5);
  return {
    now: number(r[0], "now"),
    kept: count(r[1], "kept"),
    granted: count(r[2], "granted"),
    direct: count(r[3], "direct"),
    others: count(r[4], "others"),
  };
}

/** `[now, n]`, n at least 1. */
export function parseHeartbeatReply(value: RedisReply): HeartbeatReply {
  const r = array(value, "heartbeat", (n) => n === 2);
  return { now: number(r[0], "now"), replicas: Math.max(1, count(r[1], "replicas")) };
}
