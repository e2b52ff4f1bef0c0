import { MemoryStore, type RateRequest, RedisStore, type RoundReply, type WindowSpec } from "@resil/limit";
import { type RedisServer, seededRandom, startRedis } from "@resil/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IoRedisExec } from "../src/index.js";

// Rounds carrying many rate keys at once, served several keys per script call (docs/protocol.md#s3-4),
// against MemoryStore: the same replies, key for key. Real Redis: run under the machine lock.

const PODS = ["p1", "p2", "p3"] as const;

function windowsFor(alg: number, rnd: () => number): WindowSpec[] {
  const perSecond = 1 + Math.floor(rnd() * 49);
  const burst = alg === 2 ? 1 + Math.floor(rnd() * perSecond) : perSecond;
  const w: WindowSpec[] = [{ limit: perSecond, windowMs: 1000, burst }];
  if (rnd() < 0.5)
    w.push({ limit: 10 + Math.floor(rnd() * 490), windowMs: 60_000, burst: alg === 2 ? burst : 500 });
  return w;
}

describe("RedisStore: several subjects per script call (ioredis, single node)", () => {
  let server: RedisServer;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedis({ controllable: true });
    client = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  /**
   * Random rounds against MemoryStore. `shared`: subjects share 4 policies, a round's keys come
   * grouped by policy and mostly with the round's pod, allowance, replicas and lease, so most blocks
   * are compact (the previous block's settings); otherwise every subject has its own windows.
   */
  async function compare(seed: number, keysPerCall: number, shared: boolean): Promise<number> {
    const rnd = seededRandom(seed);
    const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    const run = Math.floor(Math.random() * 1e9).toString(36);
    const policies = Array.from({ length: 4 }, (_, i) => windowsFor(i % 3, rnd));
    const subjects = Array.from({ length: 60 }, (_, i) => {
      const alg = shared ? (i % 4) % 3 : i % 3;
      return {
        key: `rl2:{many-${run}:s${i}}:00000000000000${String(i).padStart(2, "0")}`,
        alg,
        group: shared ? i % 4 : i,
        windows: shared ? policies[i % 4]! : windowsFor(alg, rnd),
      };
    });
    const oracle = new MemoryStore();
    const subject = new RedisStore(new IoRedisExec(client), { keysPerCall });
    let now = 1.75e12 + rnd() * 1e6;
    let compared = 0;
    const lastSeen = new Map<string, RoundReply["rates"][number]["windows"]>();
    // the windows a replica saw: the last reply's, or raised as if the store had lost counts since
    const seenOf = (key: string) => {
      const last = lastSeen.get(key);
      if (last === undefined || rnd() < 0.5) return {};
      const raise = rnd() < 0.5;
      const seen = last.map((w) => ({
        idx: raise ? w.idx + int(0, 1) : w.idx,
        cur: raise ? w.cur + int(0, 15) : w.cur,
        prev: w.prev,
        tat: raise ? w.tat + rnd() * 1500 : w.tat,
      }));
      return { seen };
    };
    for (let step = 0; step < 300; step++) {
      now += rnd() * 300;
      const picked = new Set<number>();
      const n = int(1, 40);
      while (picked.size < n) picked.add(int(0, subjects.length - 1));
      const order = [...picked].sort((a, b) => subjects[a]!.group - subjects[b]!.group);
      const round = { pod: PODS[int(0, 2)]!, allowance: 0.8, replicas: int(1, 4), lease: 3000 };
      const own = () => !shared || rnd() < 0.1;
      const rates: RateRequest[] = order.map((i) => {
        const s = subjects[i]!;
        // zero often, so compact blocks of every length are sent (trailing defaults are left out)
        const hits = rnd() < 0.3 ? 0 : int(0, 20);
        return {
          key: s.key,
          alg: s.alg as RateRequest["alg"],
          windows: s.windows,
          pod: own() ? PODS[int(0, 2)]! : round.pod,
          hits,
          hitsOld: rnd() < 0.3 ? int(0, 5) : 0,
          tOld: now - rnd() * 2500,
          unused: rnd() < 0.3 ? 0 : int(0, 9),
          want: rnd() < 0.2 ? 0 : int(0, 30),
          need: int(0, 3),
          batch: rnd() < 0.5 ? int(0, 12) : 0,
          head: rnd() < 0.2 ? int(2, 15) : 0,
          allowance: own() ? (rnd() < 0.5 ? 0.8 : 1) : round.allowance,
          replicas: own() ? int(1, 4) : round.replicas,
          leaseTtlMs: own() ? (rnd() < 0.5 ? 300 : 3000) : round.lease,
          ...(rnd() < 0.5 ? { pushId: `x${int(1, 3)}`, pushTotal: step * 100 + hits } : {}),
          ...seenOf(s.key),
        };
      });
      const request = { now, releases: [], rates, concurrency: [] };
      const expected: RoundReply = await oracle.round(structuredClone(request));
      const actual: RoundReply = await subject.round(structuredClone(request));
      expect(actual.rates.length).toBe(rates.length);
      actual.rates.forEach((a, i) => {
        const e = expected.rates[i]!;
        lastSeen.set(rates[i]!.key, e.windows);
        const counts = (r: typeof a) => [r.kept, r.avail, r.granted, r.direct, r.others];
        expect(counts(a)).toEqual(counts(e));
        expect(a.windows.map((w) => [w.idx, w.cur, w.prev])).toEqual(
          e.windows.map((w) => [w.idx, w.cur, w.prev]),
        );
        for (const [j, w] of a.windows.entries())
          expect(Math.abs(w.tat - e.windows[j]!.tat)).toBeLessThanOrEqual(1e-6);
        expect(Math.abs(a.now - e.now)).toBeLessThanOrEqual(1e-3);
        compared++;
      });
    }
    return compared;
  }

  it("replies like MemoryStore on 300 random rounds of 1 to 40 keys, 3 per call", async () => {
    expect(await compare(0xca11, 3, false)).toBeGreaterThan(300 * 10);
  });

  it("replies like MemoryStore when most keys of a call share their settings (compact blocks)", async () => {
    expect(await compare(0xb10c, 64, true)).toBeGreaterThan(300 * 10);
  });

  it("reads Redis TIME once per call: the keys of one call reply the same store time", async () => {
    const store = new RedisStore(new IoRedisExec(client), { keysPerCall: 64 });
    const rates = Array.from({ length: 30 }, (_, i) => ({
      key: `rl2:{time-many:s${i}}:0000000000000001`,
      alg: 1 as const,
      windows: [{ limit: 100, windowMs: 1000, burst: 100 }],
      pod: "a",
      hits: 1,
      hitsOld: 0,
      tOld: 0,
      unused: 0,
      want: 5,
      need: 0,
      allowance: 1,
      replicas: 1,
      leaseTtlMs: 3000,
    }));
    const reply = await store.round({ releases: [], rates, concurrency: [] });
    expect(new Set(reply.rates.map((r) => r.now)).size).toBe(1);
    expect(Math.abs(reply.rates[0]!.now - Date.now())).toBeLessThan(5000);
    expect(reply.rates.every((r) => r.granted === 5 && r.windows[0]!.cur === 1)).toBe(true);
  });
});
