import type { RedisServer } from "@resil/testkit";
import type { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import {
  type Baseline,
  baselineTryAdmitCallers,
  baselineTryAdmitOne,
  baselineTryCheckCallers,
  baselineTryCheckOne,
  loadBaseline,
} from "./baseline.js";
import { floorCallers, floorClockCallers, floorClockOneCaller, floorOneCaller } from "./floor.js";
import { measure, measureOptions, type Unavailable, type Variant } from "./harness.js";
import { HUGE_LIMIT, makeKeys } from "./keys.js";
import { CachedCounter } from "./peers/cached-counter.js";
import { RlfWindows, rlfOneWindow } from "./peers/rlf-windows.js";
import { connect, disconnect, privateRedis } from "./redis.js";
import { memoryLimiter, type ResilHandle } from "./resil-setup.js";
import type { Row, RunOptions } from "./types.js";
import * as v from "./variants.js";

/**
 * The hot-path scenarios (@resil/limit docs/protocol.md#s6, "Benchmark"): the same key walk, the same three windows, for
 * the floor, resil and every peer, one caller or 16 concurrent async callers.
 */
export async function hotPath(opts: RunOptions, keyCount: number, callers: "one" | "many"): Promise<Row[]> {
  const keys = makeKeys(keyCount);
  const one = callers === "one";
  let resil: ResilHandle | undefined;
  let baseline: Baseline | undefined;
  let server: RedisServer | string = "not started";
  let client: Redis | undefined;
  try {
    resil = await memoryLimiter(keys);
    server = await privateRedis();
    if (typeof server !== "string") client = await connect(server);
    const undecided: v.UndecidedCounter = { undecided: 0, total: 0 };
    const list: Array<Variant | Unavailable> = [
      one ? floorOneCaller(keys) : floorCallers(keys),
      one ? floorClockOneCaller(keys) : floorClockCallers(keys),
    ];
    const l = resil.limiter;
    list.push(one ? v.resilTryCheckOne(l, keys, undecided) : v.resilTryCheckCallers(l, keys, undecided));
    const undecidedAdmit: v.UndecidedCounter = { undecided: 0, total: 0 };
    list.push(
      one ? v.resilTryAdmitOne(l, keys, undecidedAdmit) : v.resilTryAdmitCallers(l, keys, undecidedAdmit),
    );
    list.push(one ? v.resilCheckOne(l, keys) : v.resilCheckCallers(l, keys));
    baseline = await loadBaseline(keys);
    if (baseline) {
      list.push(one ? baselineTryCheckOne(baseline, keys) : baselineTryCheckCallers(baseline, keys));
      list.push(one ? baselineTryAdmitOne(baseline, keys) : baselineTryAdmitCallers(baseline, keys));
    }
    list.push(one ? v.limiterOne(keys) : v.limiterCallers(keys));
    const consume = one ? v.consumeOne : v.consumeCallers;
    list.push(consume("rlf-memory", v.LABELS.rlf, new RlfWindows(), keys));
    list.push(consume("rlf-memory-1w", v.LABELS.rlf1, rlfOneWindow(), keys));
    if (client === undefined) {
      const why = typeof server === "string" ? server : "no Redis connection";
      list.push({ id: "cached-counter", label: v.LABELS.cached, unavailable: why });
      list.push({ id: "rlf-redis", label: v.LABELS.rlfRedis, unavailable: why });
    } else {
      const cc = new CachedCounter(client);
      list.push(one ? v.cachedOne(cc, keys) : v.cachedCallers(cc, keys));
      const rlfRedis = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: "rlfb",
        points: HUGE_LIMIT,
        duration: 1,
      });
      list.push(consume("rlf-redis", v.LABELS.rlfRedis, rlfRedis, keys));
    }
    const rows = await measure(list, measureOptions(opts));
    const note = v.undecidedNote(undecided);
    const tc = rows.find((r) => r.id === "resil-trycheck");
    if (note && tc?.available) tc.note = tc.note ? `${tc.note}; ${note}` : note;
    const noteAdmit = v.undecidedNote(undecidedAdmit, "tryAdmit");
    const ta = rows.find((r) => r.id === "resil-tryadmit");
    if (noteAdmit && ta?.available) ta.note = ta.note ? `${ta.note}; ${noteAdmit}` : noteAdmit;
    return rows;
  } finally {
    await resil?.close();
    await baseline?.close();
    if (client) await disconnect(client);
    if (typeof server !== "string") await server.stop();
  }
}
