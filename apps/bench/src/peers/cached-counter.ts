import type { Redis } from "ioredis";
import { HUGE_LIMIT } from "../keys.js";
import { LimiterWindows } from "./limiter-windows.js";

/** How long a Redis count is trusted. */
export const REFRESH_MS = 200;
/** Share of the remaining budget a replica spends alone between refreshes. */
export const ALLOWANCE = 0.8;
const CACHE_TTL_MS = 300_000;
const CACHE_MAX = 10_000;
const WINDOWS: ReadonlyArray<{ name: string; ms: number }> = [
  { name: "s", ms: 1_000 },
  { name: "m", ms: 60_000 },
  { name: "h", ms: 3_600_000 },
];

interface Entry {
  remaining: number;
  used: number;
  /** Admitted since the last push to Redis. */
  unpushed: number;
  at: number;
  refreshing: boolean;
  local: LimiterWindows;
}

/**
 * The common "cached counter" design the seed compares against (@resil/limit docs/protocol.md#s6): a per-key cache of
 * {remaining, used, at}; while the entry is younger than 200 ms a decision is local (used++, admit if
 * within ALLOWANCE of the remaining budget); otherwise a background refresh pushes the local count to
 * Redis and reads the window totals, and the decision falls back to per-replica limiters meanwhile.
 */
export class CachedCounter {
  private readonly cache = new Map<string, Entry>();
  /** Refresh pipelines sent (each is one round trip of 6 commands). */
  refreshes = 0;

  constructor(private readonly redis: Redis) {}

  admit(key: string): boolean {
    const now = performance.now();
    let e = this.cache.get(key);
    if (e !== undefined && now - e.at < REFRESH_MS) {
      e.used++;
      if (e.used > e.remaining) return false;
      e.unpushed++;
      return true;
    }
    if (e === undefined || now - e.at > CACHE_TTL_MS) {
      if (this.cache.size >= CACHE_MAX) this.evictOne();
      e = {
        remaining: 0,
        used: 0,
        unpushed: 0,
        at: Number.NEGATIVE_INFINITY,
        refreshing: false,
        local: new LimiterWindows(),
      };
      this.cache.set(key, e);
    }
    if (!e.refreshing) this.refresh(key, e);
    if (!e.local.tryRemove()) return false;
    e.unpushed++;
    return true;
  }

  private evictOne(): void {
    const oldest = this.cache.keys().next();
    if (!oldest.done) this.cache.delete(oldest.value);
  }

  private refresh(key: string, e: Entry): void {
    e.refreshing = true;
    this.refreshes++;
    const pushed = e.unpushed;
    e.unpushed = 0;
    const unix = Date.now();
    const pipe = this.redis.pipeline();
    for (const w of WINDOWS) {
      const k = `cc:{${key}}:${w.name}:${Math.floor(unix / w.ms)}`;
      pipe.incrby(k, pushed).pexpire(k, w.ms * 2);
    }
    pipe
      .exec()
      .then((replies) => {
        let used = 0;
        for (let i = 0; i < WINDOWS.length; i++) used = Math.max(used, Number(replies?.[i * 2]?.[1] ?? 0));
        e.remaining = Math.floor((HUGE_LIMIT - used) * ALLOWANCE);
        e.used = 0;
        e.at = performance.now();
      })
      .catch(() => {
        e.unpushed += pushed; // keep the count for the next try; decisions stay on the local limiters
      })
      .finally(() => {
        e.refreshing = false;
      });
  }
}
