import { StoreReplyError } from "../store/errors.js";
import { RateAnswer, StateCopy } from "../store/rate-answer.js";
import type { ConcurrencyReply, HeartbeatReply, RateReply, WindowState } from "../store/types.js";
import type { RedisReply } from "./exec.js";

/**
 * Reading script replies: exact lengths, numbers from integers or strings, and negative counts read as
 * 0 (only `avail` is signed), as the original read them into unsigned integers.
 */

// `window` >= 0 names the field of that window: the name is built only for the error
function number(value: RedisReply | undefined, field: string, window = -1): number {
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "bigint") n = Number(value);
  else if (typeof value === "string" && value.trim() !== "") n = Number(value);
  else n = Number.NaN;
  if (!Number.isFinite(n)) {
    const name = window >= 0 ? `windows[${window}].${field}` : field;
    throw new StoreReplyError(`RedisStore: ${name} is not a number: ${JSON.stringify(String(value))}`);
  }
  return n;
}

function count(value: RedisReply | undefined, field: string, window = -1): number {
  return Math.max(0, number(value, field, window));
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
  return rateAt(r, 0, windows);
}

/**
 * One rate script call's reply for several keys: each key's reply (6 + 4 nw entries, `windows[j]`
 * being its nw) concatenated in key order; the total length is exact.
 */
export function parseRateReplies(value: RedisReply, windows: readonly number[]): RateReply[] {
  let total = 0;
  for (const nw of windows) total += 6 + 4 * nw;
  const r = array(value, "rate", (n) => n === total);
  const out: RateReply[] = new Array(windows.length);
  let at = 0;
  for (let j = 0; j < windows.length; j++) {
    const nw = windows[j]!;
    out[j] = rateAt(r, at, nw);
    at += 6 + 4 * nw;
  }
  return out;
}

// one key's reply read where it starts in the call's reply: no copy of its entries
function rateAt(r: readonly RedisReply[], at: number, windows: number): RateReply {
  const states: WindowState[] = new Array(windows);
  for (let i = 0; i < windows; i++) {
    const w = at + 6 + 4 * i;
    states[i] = new StateCopy(
      count(r[w], "idx", i),
      count(r[w + 1], "cur", i),
      count(r[w + 2], "prev", i),
      number(r[w + 3], "tat", i),
    );
  }
  return new RateAnswer(
    number(r[at], "now"),
    count(r[at + 1], "kept"),
    number(r[at + 2], "avail"),
    count(r[at + 3], "granted"),
    count(r[at + 4], "direct"),
    count(r[at + 5], "others"),
    states,
  );
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
