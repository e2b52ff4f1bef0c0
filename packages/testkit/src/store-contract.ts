import {
  Limiter,
  MemoryStore,
  type RateRequest,
  RedisCommandError,
  RedisStore,
  type Store,
  type WindowSpec,
} from "@resil/limit";
import { concurrencyStoreKey, configHash, keySlot, rateStoreKey, registryStoreKey } from "@resil/limit/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisClusterHandle, startCluster } from "./cluster.js";
import type { ExecHandle } from "./exec-handle.js";
import { runParity } from "./parity.js";
import { rawCommand } from "./resp.js";
import { type RedisServer, startRedis } from "./server.js";

/** How an adapter package connects its client to the servers the contract suite starts. */
export interface AdapterUnderTest {
  name: string;
  single(server: RedisServer): Promise<ExecHandle>;
  cluster(seeds: ReadonlyArray<{ host: string; port: number }>): Promise<ExecHandle>;
}

const T0 = 1_750_000_020_000;
const MINUTE: WindowSpec[] = [{ limit: 100, windowMs: 60_000, burst: 100 }];

function rate(key: string, over: Partial<RateRequest> = {}): RateRequest {
  return {
    key,
    alg: 0,
    windows: MINUTE,
    pod: "a",
    hits: 0,
    hitsOld: 0,
    tOld: 0,
    unused: 0,
    want: 0,
    need: 0,
    allowance: 1,
    replicas: 2,
    leaseTtlMs: 3000,
    ...over,
  };
}

/** Subjects that must not break keys: braces, newlines, control bytes, lone surrogates, 10 kB. */
export const HOSTILE_SUBJECTS: readonly string[] = [
  "plain",
  "{",
  "}",
  "}{",
  "a}b{c",
  "{tenant}:x",
  "line\nbreak",
  "line\r\nbreak",
  "nul\u0000byte",
  "\u00ff\u00fe binary-ish \u0001\u0002",
  "emoji 🙂 and ünïcödé",
  "x".repeat(10_240),
  `${"x".repeat(10_239)}y`,
  "",
];

function parseHash(raw: string): Map<string, string> {
  // RESP array of bulk strings: *N, then $len / value pairs
  const lines = raw.split("\r\n");
  const out = new Map<string, string>();
  const values: string[] = [];
  for (let i = 1; i < lines.length; i++)
    if (!lines[i]!.startsWith("$") && lines[i] !== "") values.push(lines[i]!);
  for (let i = 0; i + 1 < values.length; i += 2) out.set(values[i]!, values[i + 1]!);
  return out;
}

/**
 * The RedisStore contract through one adapter, against real servers it starts and stops: parity with
 * MemoryStore (@resil/limit docs/protocol.md#s5) and its three fixed cases, the key layout of #s3-4, hostile subjects, a
 * failing command, and the same on a 3-master cluster.
 */
export function describeStoreContract(adapter: AdapterUnderTest): void {
  describe(`RedisStore over ${adapter.name}: single node`, () => {
    let server: RedisServer;
    let handle: ExecHandle;
    let store: RedisStore;

    beforeAll(async () => {
      server = await startRedis({ controllable: true });
      handle = await adapter.single(server);
      store = new RedisStore(handle.exec);
    });
    afterAll(async () => {
      await handle?.close();
      await server?.stop();
    });

    it("replies exactly like MemoryStore on 60 random cases x 80 rounds (@resil/limit docs/protocol.md#s5)", async () => {
      const report = await runParity({ oracle: new MemoryStore(), subject: store, seed: 0x5eed });
      console.log(`parity (${adapter.name}): ${report.rounds} rounds, ${report.compared} fields compared`);
      expect(report.mismatches.slice(0, 10)).toEqual([]);
      expect(report.rounds).toBe(60 * 80);
    });

    it("uses Redis TIME when the round gives no time (within 5 s of local time, n = 1)", async () => {
      const reply = await store.round({
        releases: [],
        rates: [rate("rl2:{time:case}:0000000000000001", { hits: 1 })],
        concurrency: [],
        heartbeat: { key: "rl2:{time-case}:pods", pod: "a", windowMs: 3000, leave: false },
      });
      expect(Math.abs(reply.heartbeat!.now - Date.now())).toBeLessThan(5000);
      expect(Math.abs(reply.rates[0]!.now - Date.now())).toBeLessThan(5000);
      expect(reply.heartbeat!.replicas).toBe(1);
      expect(reply.rates[0]!.windows[0]!.cur).toBe(1);
    });

    it("survives SCRIPT FLUSH: reloads and keeps the state", async () => {
      const key = "rl2:{flush:case}:0000000000000001";
      await store.round({ now: T0, releases: [], rates: [rate(key, { hits: 3 })], concurrency: [] });
      expect(await rawCommand(server.port, ["SCRIPT", "FLUSH"])).toMatch(/^\+OK/);
      const after = await store.round({
        now: T0 + 1,
        releases: [],
        rates: [rate(key, { hits: 2 })],
        concurrency: [],
        heartbeat: { key: "rl2:{flush}:pods", pod: "a", windowMs: 3000, leave: false },
      });
      expect(after.rates[0]!.windows[0]!.cur).toBe(5);
      expect(after.heartbeat!.replicas).toBe(1);
    });

    it("drops a lease expiring exactly now, like MemoryStore", async () => {
      const key = "rl2:{expiry:case}:0000000000000001";
      const memory = new MemoryStore();
      for (const s of [store, memory]) {
        const b = await s.round({
          now: T0,
          releases: [],
          rates: [rate(key, { pod: "b", want: 1000, leaseTtlMs: 1000 })],
          concurrency: [],
        });
        expect(b.rates[0]!.granted).toBe(50);
        const before = await s.round({ now: T0 + 999, releases: [], rates: [rate(key)], concurrency: [] });
        expect([before.rates[0]!.others, before.rates[0]!.avail]).toEqual([50, 50]);
        const at = await s.round({ now: T0 + 1000, releases: [], rates: [rate(key)], concurrency: [] });
        expect([at.rates[0]!.others, at.rates[0]!.avail]).toEqual([0, 100]);
      }
      expect(await rawCommand(server.port, ["HEXISTS", key, "L:b"])).toBe(":0\r\n");
    });

    it("keeps a unit for the replica waiting longest (turns), like MemoryStore; release drops the turn", async () => {
      const key = "rl2:{turns:case}:0000000000000001";
      const memory = new MemoryStore();
      const second: WindowSpec[] = [{ limit: 2, windowMs: 1000, burst: 2 }];
      const ask = (pod: string, over: Partial<RateRequest> = {}) =>
        rate(key, { pod, windows: second, need: 1, leaseTtlMs: 6000, ...over });
      const steps: Array<[number, RateRequest]> = [
        [T0, ask("x", { hits: 2, need: 0 })], // fills the second
        [T0 + 1, ask("b")], // none left: ticket 1
        [T0 + 2, ask("c")], // ticket 2
        [T0 + 1001, ask("c")], // new second: one unit kept for b, c takes the other
        [T0 + 1002, ask("d", { need: 2 })], // b's unit is not d's: ticket 3
        [T0 + 1003, ask("b")], // b, first in line, takes its unit
      ];
      const got: number[][][] = [[], []];
      for (const [i, s] of [store, memory].entries()) {
        for (const [now, request] of steps) {
          const r = (await s.round({ now, releases: [], rates: [request], concurrency: [] })).rates[0]!;
          got[i]!.push([r.others, r.avail, r.direct]);
        }
      }
      expect(got[0]).toEqual(got[1]);
      expect(got[0]!.slice(1).map(([others, , direct]) => [others, direct])).toEqual([
        [0, 0],
        [1, 0],
        [1, 1],
        [1, 0],
        [0, 1],
      ]);
      const hash = parseHash(await rawCommand(server.port, ["HGETALL", key]));
      expect(hash.get("q")).toBe("4");
      expect(hash.get("Q:d")).toBe(`3:${T0 + 1002 + 2000}`);
      expect(hash.has("Q:b") || hash.has("Q:c")).toBe(false);
      await store.round({ now: T0 + 1004, releases: [{ key, pod: "d" }], rates: [], concurrency: [] });
      expect(await rawCommand(server.port, ["HEXISTS", key, "Q:d"])).toBe(":0\r\n");
    });

    it("gives a waiting replica its batch as credit and keeps a batch for each older ticket, like MemoryStore", async () => {
      const key = "rl2:{batch:case}:0000000000000001";
      const memory = new MemoryStore();
      const second: WindowSpec[] = [{ limit: 20, windowMs: 1000, burst: 20 }];
      const ask = (pod: string, over: Partial<RateRequest> = {}) =>
        rate(key, {
          pod,
          alg: 1,
          windows: second,
          want: 10,
          need: 1,
          batch: 4,
          allowance: 0.1,
          replicas: 4,
          leaseTtlMs: 6000,
          ...over,
        });
      const start = T0; // on a second
      const steps: Array<[number, RateRequest]> = [
        [start, ask("x", { hits: 20, need: 0, batch: 0 })], // fills the second
        [start + 1, ask("b")], // none left: ticket 1
        [start + 1250, ask("c")], // 5 free again; b's batch of 4 is held for it, c gets 1 (short: a ticket)
        [start + 1251, ask("b")], // b, first in line, gets its batch of 4 as credit
        [start + 1400, ask("d", { batch: 0 })], // no batch: the plain grant step; one unit held for c's ticket
        [start + 1401, ask("c")], // c, first in line now, gets what is free (3 of its 4)
      ];
      const got = await grantsOf([store, memory], steps);
      expect(got[0]).toEqual(got[1]);
      // [others, avail, granted, direct]
      expect(got[0]!.slice(1)).toEqual([
        [0, 0, 0, 0],
        [4, 1, 1, 0],
        [1, 4, 4, 0],
        [6, 2, 0, 1],
        [4, 3, 3, 0],
      ]);
      // c was left short of its batch again: it keeps its place in line
      const hash = parseHash(await rawCommand(server.port, ["HGETALL", key]));
      expect(hash.has("Q:c")).toBe(true);
      expect(hash.has("Q:b")).toBe(false);
    });

    it("writes no ticket for a waiting ask that got all it wanted, below its batch, like MemoryStore", async () => {
      const key = "rl2:{met:case}:0000000000000001";
      const memory = new MemoryStore();
      const second: WindowSpec[] = [{ limit: 100, windowMs: 1000, burst: 100 }];
      // a request waited on a stale view: no credit asked, a batch of 40, admitted directly
      const ask = (pod: string, over: Partial<RateRequest> = {}) =>
        rate(key, { pod, alg: 1, windows: second, want: 0, need: 1, batch: 40, leaseTtlMs: 6000, ...over });
      const steps: Array<[number, RateRequest]> = [
        [T0, ask("b")],
        [T0 + 1, ask("c", { need: 0, batch: 0 })],
      ];
      const got = await grantsOf([store, memory], steps);
      expect(got[0]).toEqual(got[1]);
      // [others, avail, granted, direct]: b admitted directly; c sees nothing held for b
      expect(got[0]).toEqual([
        [0, 100, 0, 1],
        [0, 99, 0, 0],
      ]);
      const hash = parseHash(await rawCommand(server.port, ["HGETALL", key]));
      expect([...hash.keys()].filter((f) => f === "q" || f.startsWith("Q:"))).toEqual([]);
    });

    it("keeps a large request's units in a pool that smaller asks leave, like MemoryStore", async () => {
      const key = "rl2:{pool:case}:0000000000000001";
      const memory = new MemoryStore();
      const bucket: WindowSpec[] = [{ limit: 100, windowMs: 1000, burst: 100 }];
      const ask = (pod: string, over: Partial<RateRequest> = {}) =>
        rate(key, { pod, alg: 2, windows: bucket, allowance: 0.8, replicas: 4, leaseTtlMs: 3000, ...over });
      const fixed: WindowSpec[] = [{ limit: 100, windowMs: 60_000, burst: 100 }];
      const steps: Array<[number, RateRequest]> = [
        [T0, ask("a", { hits: 70, need: 50, head: 50 })], // short: no part of it, a pool of 50
        [T0 + 1, ask("b", { need: 1, want: 10 })], // leaves the pool: nothing
        [T0 + 300, ask("c", { need: 50, head: 50 })], // takes 50, holding nothing for b's older ticket
        [T0 + 800, ask("b", { need: 3 })], // beyond the pool
        [T0 + 1400, ask("b", { need: 1 })], // the pool lapsed a third of the lease after c's ask
        [T0, ask("f", { alg: 0, windows: fixed, key: `${key}f`, hits: 30, need: 50, head: 50 })], // covered: a pool
        [T0 + 1, ask("g", { alg: 0, windows: fixed, key: `${key}f`, need: 1 })], // a fixed window keeps it to its end
        [T0, ask("f", { alg: 0, windows: fixed, key: `${key}s`, hits: 80, need: 50, head: 50 })], // short: no pool
        [T0 + 1, ask("g", { alg: 0, windows: fixed, key: `${key}s`, need: 1 })], // the last units go to smaller requests
      ];
      const got = await grantsOf([store, memory], steps);
      expect(got[0]).toEqual(got[1]);
      // [others, avail, granted, direct]
      expect(got[0]).toEqual([
        [0, 30, 0, 0],
        [51, -21, 0, 0],
        [0, 60, 0, 50],
        [51, 9, 0, 3],
        [0, 100, 0, 1],
        [0, 70, 0, 50],
        [50, -30, 0, 0],
        [0, 20, 0, 0],
        [1, 19, 0, 1],
      ]);
      const hash = parseHash(await rawCommand(server.port, ["HGETALL", key]));
      expect(hash.has("h")).toBe(false);
      const fixedHash = parseHash(await rawCommand(server.port, ["HGETALL", `${key}f`]));
      expect(fixedHash.get("h")).toBe(`50:${T0 + 1000}`);
      const shortHash = parseHash(await rawCommand(server.port, ["HGETALL", `${key}s`]));
      expect(shortHash.has("h")).toBe(false);
    });

    it("writes the layout of @resil/limit docs/protocol.md#s3-4: windows, leases, TTLs, registry", async () => {
      const key = "rl2:{layout:case}:0000000000000001";
      const cc = "cc2:{layout:case}:3";
      const pods = "rl2:{layout}:pods";
      const windows: WindowSpec[] = [
        { limit: 10, windowMs: 1000, burst: 10 },
        { limit: 100, windowMs: 60_000, burst: 100 },
      ];
      await store.round({
        now: T0 + 0.25,
        releases: [],
        rates: [rate(key, { alg: 1, windows, hits: 4, want: 2 })],
        concurrency: [
          {
            key: cc,
            pod: "a",
            active: 2,
            unused: 0,
            want: 0,
            need: 0,
            max: 3,
            allowance: 1,
            replicas: 1,
            leaseTtlMs: 5000,
          },
        ],
        heartbeat: { key: pods, pod: "a", windowMs: 3000, leave: false },
      });
      const hash = parseHash(await rawCommand(server.port, ["HGETALL", key]));
      expect(hash.get("w1")).toBe(`${(T0 + 0.25 - 0.25) / 1000}:4:0:0`);
      expect(hash.get("w2")).toBe(`${Math.floor(T0 / 60_000)}:4:0:0`);
      expect(hash.get("L:a")).toBe(`2:${T0 + 3000.25}`);
      const pttl = Number((await rawCommand(server.port, ["PTTL", key])).slice(1));
      expect(pttl).toBeGreaterThan(2 * 60_000 + 3000 + 1000 - 5000);
      expect(pttl).toBeLessThanOrEqual(2 * 60_000 + 3000 + 1000);
      expect(parseHash(await rawCommand(server.port, ["HGETALL", cc])).get("a")).toBe(`2:${T0 + 5000.25}`);
      const ccTtl = Number((await rawCommand(server.port, ["PTTL", cc])).slice(1));
      expect(ccTtl).toBeGreaterThan(5000);
      expect(ccTtl).toBeLessThanOrEqual(10_000);
      expect(await rawCommand(server.port, ["ZSCORE", pods, "a"])).toContain(`${T0 + 0.25}`);
      const zTtl = Number((await rawCommand(server.port, ["PTTL", pods])).slice(1));
      expect(zTtl).toBeGreaterThan(25_000);
      expect(zTtl).toBeLessThanOrEqual(30_000);
    });

    it("keeps hostile subjects apart, bounded, and like MemoryStore", async () => {
      const memory = new MemoryStore();
      const hash = configHash(0, MINUTE);
      const keys = HOSTILE_SUBJECTS.map((s) => rateStoreKey("svc{x}\n", s, hash));
      expect(new Set(keys).size).toBe(keys.length);
      for (const k of keys) expect(Buffer.byteLength(k)).toBeLessThanOrEqual(400);
      const request = (i: number) => ({
        now: T0,
        releases: [],
        rates: [rate(keys[i]!, { hits: i + 1 })],
        concurrency: [
          {
            key: concurrencyStoreKey("svc{x}\n", HOSTILE_SUBJECTS[i]!),
            pod: "a",
            active: 1,
            unused: 0,
            want: 0,
            need: 0,
            max: 4,
            allowance: 1,
            replicas: 1,
            leaseTtlMs: 5000,
          },
        ],
        heartbeat: { key: registryStoreKey("svc{x}\n"), pod: "a", windowMs: 3000, leave: false },
      });
      for (let i = 0; i < keys.length; i++) {
        const got = await store.round(request(i));
        const want = await memory.round(request(i));
        expect(got.rates[0]!.windows[0]!.cur).toBe(i + 1);
        expect(got).toEqual(want);
      }
      // one subject's keys share a slot: the rate and concurrency scripts of a subject meet one node
      for (const s of HOSTILE_SUBJECTS) {
        expect(keySlot(rateStoreKey("svc", s, hash))).toBe(keySlot(concurrencyStoreKey("svc", s)));
      }
    });

    // Digests hash UTF-16 code units: in UTF-8 every lone surrogate would become U+FFFD and collide.
    it("keeps subjects that differ only in lone surrogates apart", () => {
      const hash = configHash(0, MINUTE);
      expect(rateStoreKey("svc", "\ud800", hash)).not.toBe(rateStoreKey("svc", "\udc00", hash));
    });

    it("fails the round with a named error when a command fails (a key of the wrong type)", async () => {
      const key = "rl2:{wrongtype:case}:0000000000000001";
      await rawCommand(server.port, ["SET", key, "not a hash"]);
      const err = await store
        .round({ now: T0, releases: [], rates: [rate(key)], concurrency: [] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisCommandError);
      expect(String((err as Error).message)).toMatch(/WRONGTYPE/);
    });
  });

  describe(`RedisStore over ${adapter.name}: 3-master cluster`, () => {
    let cluster: RedisClusterHandle;
    let handle: ExecHandle;

    beforeAll(async () => {
      cluster = await startCluster();
      handle = await adapter.cluster(cluster.seeds);
    });
    afterAll(async () => {
      await handle?.close();
      await cluster?.stop();
    });

    it("replies exactly like MemoryStore with keys spread over the slots of every node", async () => {
      const report = await runParity({
        oracle: new MemoryStore(),
        subject: new RedisStore(handle.exec),
        seed: 0xc1a5,
        cases: 30,
        steps: 40,
      });
      expect(report.mismatches.slice(0, 10)).toEqual([]);
      expect(report.rounds).toBe(30 * 40);
      const used = await Promise.all(
        cluster.nodes.map(async (n) => {
          const info = await rawCommand(n.port, ["INFO", "commandstats"]);
          return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
        }),
      );
      for (const calls of used) expect(calls).toBeGreaterThan(0);
    });

    it("runs a round of hostile subjects on every node without CROSSSLOT, and survives a flush of one node", async () => {
      const store = new RedisStore(handle.exec);
      const memory = new MemoryStore();
      const hash = configHash(0, MINUTE);
      const rates = HOSTILE_SUBJECTS.map((s, i) => rate(rateStoreKey("svc", s, hash), { hits: i + 1 }));
      const request = (now: number) => ({
        now,
        releases: HOSTILE_SUBJECTS.map((s) => ({ key: concurrencyStoreKey("svc", s), pod: "gone" })),
        rates: rates.map((r) => ({ ...r })),
        concurrency: [],
        heartbeat: { key: registryStoreKey("svc"), pod: "a", windowMs: 3000, leave: false },
      });
      expect(await store.round(request(T0))).toEqual(await memory.round(request(T0)));
      await rawCommand(cluster.nodes[1]!.port, ["SCRIPT", "FLUSH"]);
      // only the commands of the flushed node are retried: nothing is applied twice
      expect(await store.round(request(T0 + 1))).toEqual(await memory.round(request(T0 + 1)));
    });

    it("holds 50 rps per subject with 4 replicas, subjects spread over the slots of every node", async () => {
      // a third of the slots per master: pick subjects until every master serves one
      const third = (s: string) => Math.floor(keySlot(rateStoreKey("cl", s, "0")) / (16384 / 3));
      const subjects = ["bravo{x}", "charlie\nline"];
      for (let i = 0; i < 100 && new Set(subjects.map(third)).size < 3; i++) {
        const s = `subject-${i}`;
        if (!subjects.map(third).includes(third(s))) subjects.push(s);
      }
      const slots = subjects.map((s) => keySlot(rateStoreKey("cl", s, "0")));
      const owners = new Set(subjects.map(third));
      expect(owners.size).toBe(3);
      const connections = await Promise.all([0, 1, 2, 3].map(() => adapter.cluster(cluster.seeds)));
      const limiters = connections.map(
        (c, i) => new Limiter({ service: "cl", podId: `pod-${i}` }, new RedisStore(c.exec)),
      );
      try {
        await Promise.all(limiters.map((l) => l.start()));
        await new Promise((r) => setTimeout(r, 1100));
        for (const l of limiters) {
          for (const s of subjects) {
            l.setPolicy(s, {
              algorithm: "fixed_window",
              requestsPerSecond: 50,
              localAllowance: 0.8,
              cacheTtlMs: 500,
            });
          }
        }
        expect(limiters.map((l) => l.replicas())).toEqual([4, 4, 4, 4]);
        await new Promise((r) => setTimeout(r, (950 - (Date.now() % 1000) + 1000) % 1000));
        const counts = new Map<string, number>();
        const end = Date.now() + 3000;
        let turn = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            for (let i = 0; i < 1000 && Date.now() < end; i++) {
              const n = turn++;
              const subject = subjects[n % subjects.length]!;
              const d = await limiters[Math.floor(n / subjects.length) % 4]!.check(subject);
              const cell = `${subject}@${Math.floor(Date.now() / 1000)}`;
              if (d.kind === "allow") counts.set(cell, (counts.get(cell) ?? 0) + 1);
              await new Promise((r) => setTimeout(r, 16));
            }
          }),
        );
        const perSubject = subjects.map((s) =>
          [...counts.entries()]
            .filter(([k]) => k.startsWith(`${s}@`))
            .sort()
            .map(([, v]) => v),
        );
        console.log(
          `cluster (${adapter.name}), slots ${slots.join(",")} on ${owners.size} nodes: admitted per second ${JSON.stringify(perSubject)}`,
        );
        for (const seconds of perSubject) {
          for (const admitted of seconds) expect(admitted).toBeLessThanOrEqual(52);
          // the first full second after the cold start may fall a few short (45-46 seen on ioredis);
          // from the next one on, the bound of docs/protocol.md#s6 holds
          for (const admitted of seconds.slice(2, -1)) expect(admitted).toBeGreaterThanOrEqual(48);
        }
      } finally {
        await Promise.all(limiters.map((l) => l.shutdown()));
        await Promise.all(connections.map((c) => c.close()));
      }
    });
  });
}

/** Each step's reply as [others, avail, granted, direct], per store, the steps played in order. */
async function grantsOf(stores: Store[], steps: Array<[number, RateRequest]>): Promise<number[][][]> {
  const got: number[][][] = [];
  for (const s of stores) {
    const rows: number[][] = [];
    for (const [now, request] of steps) {
      const r = (await s.round({ now, releases: [], rates: [request], concurrency: [] })).rates[0]!;
      rows.push([r.others, r.avail, r.granted, r.direct]);
    }
    got.push(rows);
  }
  return got;
}
