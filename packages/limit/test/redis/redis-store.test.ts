import { describe, expect, it } from "vitest";
import {
  type RateRequest,
  type RedisCommand,
  RedisCommandError,
  type RedisExec,
  type RedisReply,
  RedisStore,
  StoreReplyError,
  StoreRequestError,
  StoreUnavailableError,
} from "../../src/index.js";
import { CONCURRENCY_SCRIPT, HEARTBEAT_SCRIPT, RATE_SCRIPT, scriptSha } from "../../src/store-kit.js";

const RATE_SHA = scriptSha(RATE_SCRIPT.source);
const CONC_SHA = scriptSha(CONCURRENCY_SCRIPT.source);
const HB_SHA = scriptSha(HEARTBEAT_SCRIPT.source);

function rate(over: Partial<RateRequest> = {}): RateRequest {
  return {
    key: "rl2:{s:k}:0000000000000001",
    alg: 1,
    windows: [{ limit: 10, windowMs: 1000, burst: 10 }],
    pod: "p1",
    hits: 2,
    hitsOld: 0,
    tOld: 0,
    unused: 0,
    want: 3,
    need: 0,
    allowance: 0.8,
    replicas: 1,
    leaseTtlMs: 3000,
    ...over,
  };
}

const RATE_REPLY: RedisReply = ["1750000000000.5", 0, 8, 3, 0, 0, 1750000000, 2, 0, "0"];

/** A scripted Redis: answers SCRIPT LOAD with the SHA, EVALSHA from a queue, and records every pipeline. */
class FakeExec implements RedisExec {
  readonly pipelines: RedisCommand[][] = [];
  scriptsLoaded = false;
  fail: Error | undefined;
  reply: (c: RedisCommand) => RedisReply = (c) => {
    if (c.args[1] === RATE_SHA) return RATE_REPLY;
    if (c.args[1] === CONC_SHA) return ["1750000000000.5", 1, 0, 0, 2];
    if (c.args[1] === HB_SHA) return ["1750000000000.5", 3];
    return 1;
  };

  async pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]> {
    this.pipelines.push([...commands]);
    if (this.fail) throw this.fail;
    return commands.map((c) => {
      if (c.args[0] === "SCRIPT") {
        this.scriptsLoaded = true;
        return scriptSha(c.args[2]!);
      }
      if (c.args[0] === "EVALSHA" && !this.scriptsLoaded) return new Error("NOSCRIPT No matching script.");
      return this.reply(c);
    });
  }
}

describe("RedisStore", () => {
  it("loads the scripts in one pipeline, then sends one pipeline per round in spec order", async () => {
    const exec = new FakeExec();
    const store = new RedisStore(exec);
    const reply = await store.round({
      now: 1_750_000_000_000.5,
      releases: [{ key: "cc2:{s:k}:3", pod: "old" }],
      rates: [rate()],
      concurrency: [
        {
          key: "cc2:{s:k}:3",
          pod: "p1",
          active: 1,
          unused: 0,
          want: 1,
          need: 0,
          max: 3,
          allowance: 0.8,
          replicas: 1,
          leaseTtlMs: 5000,
        },
      ],
      heartbeat: { key: "rl2:{s}:pods", pod: "p1", windowMs: 3000, leave: false },
    });
    expect(exec.pipelines).toHaveLength(2);
    expect(exec.pipelines[0]!.map((c) => c.args.slice(0, 2))).toEqual([
      ["SCRIPT", "LOAD"],
      ["SCRIPT", "LOAD"],
      ["SCRIPT", "LOAD"],
    ]);
    expect(exec.pipelines[0]!.every((c) => c.key === undefined)).toBe(true);
    const round = exec.pipelines[1]!;
    expect(round.map((c) => [c.args[0], c.key])).toEqual([
      ["HDEL", "cc2:{s:k}:3"],
      ["EVALSHA", "rl2:{s:k}:0000000000000001"],
      ["EVALSHA", "cc2:{s:k}:3"],
      ["EVALSHA", "rl2:{s}:pods"],
    ]);
    expect(round[0]!.args).toEqual(["HDEL", "cc2:{s:k}:3", "L:old", "Q:old", "old"]);
    expect(round[1]!.args).toEqual([
      "EVALSHA",
      RATE_SHA,
      "1",
      "rl2:{s:k}:0000000000000001",
      ...["1", "1", "p1", "2", "0", "3", "0", "0.8", "1", "3000", "1750000000000.5", "0", "0", "0"],
      ...["", "0"], // pushId, pushTotal: none
      "0", // head: no large request waiting
      "", // seen: no reply shown yet
      ...["10", "1000", "10"],
    ]);
    expect(round[3]!.args.slice(4)).toEqual(["p1", "3000", "0", "1750000000000.5"]);
    expect(reply.rates[0]).toEqual({
      now: 1_750_000_000_000.5,
      kept: 0,
      avail: 8,
      granted: 3,
      direct: 0,
      others: 0,
      windows: [{ idx: 1_750_000_000, cur: 2, prev: 0, tat: 0 }],
    });
    expect(reply.concurrency[0]).toEqual({
      now: 1_750_000_000_000.5,
      kept: 1,
      granted: 0,
      direct: 0,
      others: 2,
    });
    expect(reply.heartbeat).toEqual({ now: 1_750_000_000_000.5, replicas: 3 });
  });

  it("asks for Redis TIME (now = 0) when the round has no time", async () => {
    const exec = new FakeExec();
    await new RedisStore(exec).round({ releases: [], rates: [rate()], concurrency: [] });
    expect(exec.pipelines[1]![0]!.args[14]).toBe("0");
  });

  it("sends nothing for an empty round", async () => {
    const exec = new FakeExec();
    expect(await new RedisStore(exec).round({ releases: [], rates: [], concurrency: [] })).toEqual({
      rates: [],
      concurrency: [],
    });
    expect(exec.pipelines).toHaveLength(0);
  });

  it("reloads on NOSCRIPT (any case) and retries only the commands that did not run", async () => {
    const exec = new FakeExec();
    const store = new RedisStore(exec);
    await store.round({ releases: [], rates: [rate()], concurrency: [] });
    let flushedOnce = false;
    const base = exec.reply;
    exec.reply = (c) => {
      if (c.key === "rl2:{s:b}:0000000000000001" && !flushedOnce) {
        flushedOnce = true;
        return new Error("noscript: gone");
      }
      return base(c);
    };
    exec.pipelines.length = 0;
    const reply = await store.round({
      releases: [],
      rates: [rate(), rate({ key: "rl2:{s:b}:0000000000000001" })],
      concurrency: [],
    });
    expect(reply.rates).toHaveLength(2);
    expect(exec.pipelines.map((p) => p.length)).toEqual([2, 3, 1]);
    expect(exec.pipelines[2]![0]!.key).toBe("rl2:{s:b}:0000000000000001");
  });

  it("fails a round whose command errs, naming the command", async () => {
    const exec = new FakeExec();
    exec.reply = () => new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
    const err = await new RedisStore(exec)
      .round({ releases: [], rates: [rate()], concurrency: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisCommandError);
    expect((err as RedisCommandError).command).toBe("EVALSHA");
  });

  it("turns a failed round trip into StoreUnavailableError", async () => {
    const exec = new FakeExec();
    exec.fail = new Error("connect ECONNREFUSED");
    await expect(
      new RedisStore(exec).round({ releases: [], rates: [rate()], concurrency: [] }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("rejects replies of the wrong length or with non-numbers", async () => {
    const exec = new FakeExec();
    exec.reply = () => RATE_REPLY.slice(0, 9) as RedisReply;
    await expect(
      new RedisStore(exec).round({ releases: [], rates: [rate()], concurrency: [] }),
    ).rejects.toBeInstanceOf(StoreReplyError);
    const short = new FakeExec();
    short.pipeline = async (cmds) => cmds.slice(1).map(() => 1);
    await expect(
      new RedisStore(short).round({ releases: [], rates: [rate()], concurrency: [] }),
    ).rejects.toThrow(/3 commands sent, 2 replies/);
  });

  it("reads negative counts as 0 but keeps avail signed", async () => {
    const exec = new FakeExec();
    exec.reply = () => ["1750000000000", -1, -4, -2, -3, -5, -6, -7, -8, "-9.5"];
    const reply = await new RedisStore(exec).round({ releases: [], rates: [rate()], concurrency: [] });
    expect(reply.rates[0]).toEqual({
      now: 1_750_000_000_000,
      kept: 0,
      avail: -4,
      granted: 0,
      direct: 0,
      others: 0,
      windows: [{ idx: 0, cur: 0, prev: 0, tat: -9.5 }],
    });
  });

  it("rejects requests Redis cannot keep (an infinite lease) before sending anything", async () => {
    const exec = new FakeExec();
    await expect(
      new RedisStore(exec).round({
        releases: [],
        rates: [rate({ leaseTtlMs: Number.POSITIVE_INFINITY })],
        concurrency: [],
      }),
    ).rejects.toBeInstanceOf(StoreRequestError);
    expect(exec.pipelines).toHaveLength(0);
  });

  it("serves several subjects in one script call on a single Redis, replies split per key", async () => {
    const exec = new FakeExec();
    Object.assign(exec, { singleNode: true });
    const reply2 = ["1750000000000.5", 1, 7, 2, 0, 0, 1750000000, 3, 1, "0", 9, 8, 7, "6"];
    exec.reply = (c) => (c.args[1] === RATE_SHA ? [...RATE_REPLY.slice(0, 10), ...reply2] : 1);
    const second = rate({
      key: "rl2:{s:other}:0000000000000002",
      hits: 0,
      windows: [
        { limit: 10, windowMs: 1000, burst: 10 },
        { limit: 100, windowMs: 60000, burst: 100 },
      ],
    });
    const reply = await new RedisStore(exec).round({
      releases: [],
      rates: [rate(), second],
      concurrency: [],
    });
    const round = exec.pipelines[1]!;
    expect(round).toHaveLength(1);
    expect(round[0]!.key).toBe("rl2:{s:k}:0000000000000001");
    expect(round[0]!.args.slice(2, 5)).toEqual([
      "2",
      "rl2:{s:k}:0000000000000001",
      "rl2:{s:other}:0000000000000002",
    ]);
    // one argument block per key: 18 named slots then 3 per window
    expect(round[0]!.args).toHaveLength(5 + 21 + 24);
    expect(round[0]!.args.slice(5 + 21, 5 + 21 + 4)).toEqual(["1", "2", "p1", "0"]);
    expect(reply.rates[0]!.granted).toBe(3);
    expect(reply.rates[1]).toEqual({
      now: 1_750_000_000_000.5,
      kept: 1,
      avail: 7,
      granted: 2,
      direct: 0,
      others: 0,
      windows: [
        { idx: 1_750_000_000, cur: 3, prev: 1, tat: 0 },
        { idx: 9, cur: 8, prev: 7, tat: 6 },
      ],
    });
  });

  it("sends a compact block for a key whose settings are the previous key's", async () => {
    const exec = new FakeExec();
    Object.assign(exec, { singleNode: true });
    exec.reply = (c) => (c.args[1] === RATE_SHA ? [0, 1, 2].flatMap(() => RATE_REPLY) : 1);
    const same = rate({ key: "rl2:{s:b}:0000000000000001", hits: 4, pushId: "x", pushTotal: 9, head: 3 });
    const other = rate({ key: "rl2:{s:c}:0000000000000001", replicas: 2 });
    await new RedisStore(exec).round({ releases: [], rates: [rate(), same, other], concurrency: [] });
    const args = exec.pipelines[1]![0]!.args;
    // full (21), compact ("=11" and the key's 11 values in RATE_COMPACT_SLOTS order), full again:
    // its replicas differ
    expect(args).toHaveLength(6 + 21 + 12 + 21);
    expect(args.slice(6 + 21, 6 + 33)).toEqual(["=11", "", "3", "0", "0", "4", "0", "x", "9", "0", "0", "3"]);
    expect(args.slice(6 + 33, 6 + 36)).toEqual(["1", "1", "p1"]);
  });

  it("leaves out a compact block's trailing values at their default", async () => {
    const exec = new FakeExec();
    Object.assign(exec, { singleNode: true });
    exec.reply = (c) => (c.args[1] === RATE_SHA ? [0, 1, 2].flatMap(() => RATE_REPLY) : 1);
    const ask = rate({ key: "rl2:{s:b}:0000000000000001", hits: 0, want: 1, need: 1, batch: 5 });
    const idle = rate({ key: "rl2:{s:c}:0000000000000001", hits: 0, want: 0 });
    await new RedisStore(exec).round({ releases: [], rates: [rate(), ask, idle], concurrency: [] });
    const args = exec.pipelines[1]![0]!.args;
    expect(args).toHaveLength(6 + 21 + 5 + 1);
    expect(args.slice(6 + 21)).toEqual(["=4", "", "1", "1", "5", "=0"]);
  });

  it("sends the windows a replica saw as idx:cur:prev:tat per window, first in a compact block", async () => {
    const exec = new FakeExec();
    Object.assign(exec, { singleNode: true });
    exec.reply = (c) => (c.args[1] === RATE_SHA ? [0, 1, 2].flatMap(() => RATE_REPLY) : 1);
    const seen = [{ idx: 1_750_000_000, cur: 4, prev: 2, tat: 0.5 }];
    const first = rate({ seen });
    const next = rate({ key: "rl2:{s:b}:0000000000000001", hits: 0, want: 0, seen });
    const none = rate({ key: "rl2:{s:c}:0000000000000001", hits: 0, want: 0 });
    await new RedisStore(exec).round({ releases: [], rates: [first, next, none], concurrency: [] });
    const args = exec.pipelines[1]![0]!.args;
    expect(args[6 + 17]).toBe("1750000000:4:2:0.5");
    expect(args.slice(6 + 21)).toEqual(["=1", "1750000000:4:2:0.5", "=0"]);
  });

  it("refuses a seen list that does not name every window, naming the field", async () => {
    const store = new RedisStore(new FakeExec());
    const bad = rate({
      seen: [
        { idx: 1, cur: 1, prev: 0, tat: 0 },
        { idx: 1, cur: 1, prev: 0, tat: 0 },
      ],
    });
    await expect(store.round({ releases: [], rates: [bad], concurrency: [] })).rejects.toThrow(/seen/);
    const nan = rate({ seen: [{ idx: Number.NaN, cur: 1, prev: 0, tat: 0 }] });
    await expect(store.round({ releases: [], rates: [nan], concurrency: [] })).rejects.toThrow(/seen\[0\]/);
  });

  it("shares a call only between keys of one hash slot when Redis may be a cluster, up to keysPerCall", async () => {
    const exec = new FakeExec();
    exec.reply = (c) =>
      c.args[1] === RATE_SHA ? Array.from({ length: Number(c.args[2]) }, () => RATE_REPLY).flat() : 1;
    const keys = ["rl2:{s:a}:1", "rl2:{s:b}:1", "rl2:{s:a}:2", "rl2:{s:a}:3"];
    const reply = await new RedisStore(exec, { keysPerCall: 2 }).round({
      releases: [],
      rates: keys.map((key) => rate({ key })),
      concurrency: [],
    });
    expect(exec.pipelines[1]!.map((c) => c.args.slice(3, 3 + Number(c.args[2])))).toEqual([
      ["rl2:{s:a}:1", "rl2:{s:a}:2"],
      ["rl2:{s:b}:1"],
      ["rl2:{s:a}:3"],
    ]);
    expect(reply.rates.map((r) => r.granted)).toEqual([3, 3, 3, 3]);
    expect(() => new RedisStore(exec, { keysPerCall: 0 })).toThrow(/keysPerCall/);
  });

  it("rejects a several-key reply of the wrong total length", async () => {
    const exec = new FakeExec();
    Object.assign(exec, { singleNode: true });
    exec.reply = (c) => (c.args[1] === RATE_SHA ? RATE_REPLY : 1);
    await expect(
      new RedisStore(exec).round({
        releases: [],
        rates: [rate(), rate({ key: "rl2:{s:x}:1" })],
        concurrency: [],
      }),
    ).rejects.toBeInstanceOf(StoreReplyError);
  });
});
