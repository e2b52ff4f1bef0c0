import { afterEach, describe, expect, it } from "vitest";
import {
  forgetService,
  NO_REDIS_MESSAGE,
  ping,
  type RedisServer,
  rawCommand,
  startCluster,
  startRedis,
} from "../src/index.js";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("private redis server", () => {
  let srv: RedisServer | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });

  it("forgetService deletes one service's keys and leaves the others", async () => {
    srv = await startRedis();
    const keys = ["rl2:{a:k}:0001", "cc2:{a:k}:3", "rl2:{a}:pods", "rl2:{ab:k}:0001", "rl2:{b}:pods"];
    for (const k of keys) await rawCommand(srv.port, ["SET", k, "1"]);
    await forgetService(srv.port, "a");
    const left = [];
    for (const k of keys) if ((await rawCommand(srv.port, ["EXISTS", k])) === ":1\r\n") left.push(k);
    expect(left).toEqual(["rl2:{ab:k}:0001", "rl2:{b}:pods"]);
  });

  it("starts on a free port, answers PING, and is gone after stop", async () => {
    srv = await startRedis({ controllable: true });
    const pid = srv.pid!;
    expect(srv.external).toBe(false);
    expect(srv.url).toBe(`redis://127.0.0.1:${srv.port}`);
    expect(await ping(srv.port)).toBe(true);
    await srv.stop();
    expect(processAlive(pid)).toBe(false);
    expect(await ping(srv.port, 200)).toBe(false);
    expect(srv.pid).toBeUndefined();
  });

  it("pauses (no answer) and resumes", async () => {
    srv = await startRedis({ controllable: true });
    srv.pause();
    expect(await ping(srv.port, 300)).toBe(false);
    srv.resume();
    expect(await ping(srv.port, 1000)).toBe(true);
  });

  it("restarts empty on the same port", async () => {
    srv = await startRedis({ controllable: true });
    const port = srv.port;
    const before = srv.pid;
    expect(await rawCommand(port, ["SET", "k", "v"])).toBe("+OK\r\n");
    await srv.restart();
    expect(srv.port).toBe(port);
    expect(srv.pid).not.toBe(before);
    expect(await rawCommand(port, ["GET", "k"])).toBe("$-1\r\n");
  });

  it("stops a paused server", async () => {
    srv = await startRedis({ controllable: true });
    const pid = srv.pid!;
    srv.pause();
    await srv.stop();
    expect(processAlive(pid)).toBe(false);
  });

  it("fails with one clear message when there is neither a URL nor a server binary", async () => {
    const path = process.env.PATH;
    const url = process.env.RESIL_TEST_REDIS_URL;
    process.env.PATH = "";
    delete process.env.RESIL_TEST_REDIS_URL;
    try {
      await expect(startRedis()).rejects.toThrow(NO_REDIS_MESSAGE);
      expect(NO_REDIS_MESSAGE).toContain("docker compose -f docker-compose.test.yml up -d");
      expect(NO_REDIS_MESSAGE).toContain("RESIL_TEST_REDIS_URL=redis://127.0.0.1:6390");
    } finally {
      process.env.PATH = path;
      if (url !== undefined) process.env.RESIL_TEST_REDIS_URL = url;
    }
  });

  it("uses RESIL_TEST_REDIS_URL when set, and refuses to pause it", async () => {
    const own = await startRedis({ controllable: true });
    const url = process.env.RESIL_TEST_REDIS_URL;
    process.env.RESIL_TEST_REDIS_URL = own.url;
    try {
      const ext = await startRedis();
      expect(ext.external).toBe(true);
      expect(ext.port).toBe(own.port);
      expect(() => ext.pause()).toThrow(/controllable/);
      await ext.stop(); // leaves the user's server alone
      expect(await ping(own.port)).toBe(true);
    } finally {
      if (url === undefined) delete process.env.RESIL_TEST_REDIS_URL;
      else process.env.RESIL_TEST_REDIS_URL = url;
      await own.stop();
    }
  });
});

describe("redis cluster", () => {
  it("creates a 3-master cluster with every slot covered and removes it", async () => {
    const cluster = await startCluster();
    const pids = cluster.nodes.map((n) => n.pid!);
    try {
      expect(cluster.nodes).toHaveLength(3);
      const info = await rawCommand(cluster.nodes[0]!.port, ["CLUSTER", "INFO"]);
      expect(info).toContain("cluster_state:ok");
      expect(info).toContain("cluster_slots_assigned:16384");
      expect(info).toContain("cluster_known_nodes:3");
    } finally {
      await cluster.stop();
    }
    for (const pid of pids) expect(processAlive(pid)).toBe(false);
  });
});
