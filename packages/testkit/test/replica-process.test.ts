import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ReplicaProcess } from "../src/index.js";

const UNREACHABLE = fileURLToPath(new URL("./fixtures/unreachable-adapter.ts", import.meta.url));
const NO_CONNECT = fileURLToPath(new URL("../src/spec-policies.ts", import.meta.url));

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const spawned: ReplicaProcess[] = [];

async function spawn(adapterModule: string, podId: string): Promise<ReplicaProcess> {
  const r = await ReplicaProcess.spawn({
    adapterModule,
    url: "redis://127.0.0.1:1",
    options: { service: "rp", podId, roundTimeoutMs: 50 },
  });
  spawned.push(r);
  return r;
}

afterAll(async () => {
  await Promise.all(spawned.map((r) => r.kill()));
});

describe("ReplicaProcess (a Limiter replica in a child process)", () => {
  it("answers policy, drive, hold and status requests, then exits on stop", async () => {
    const r = await spawn(UNREACHABLE, "pod-a");
    expect(r.pid).not.toBe(process.pid);
    expect(r.startup).toEqual({ podId: "pod-a", replicas: 1, storeFailing: true }); // its store never answers
    await r.request({
      op: "policy",
      subject: "k",
      rateLimits: { requestsPerSecond: 1000 },
      maxConcurrent: 2,
    });
    const load = await r.request({
      op: "drive",
      subject: "k",
      tasks: 2,
      startAt: Date.now() + 50,
      durationMs: 300,
      pauseMs: 10,
    });
    const offered = load.seconds.reduce((s, [, , o]) => s + o, 0);
    expect(offered).toBe(load.latencies.length);
    expect(offered).toBeGreaterThan(10);
    const hold = await r.request({ op: "hold", subject: "k", want: 3, timeoutMs: 300, pauseMs: 20 });
    expect(hold.held).toBeLessThanOrEqual(2); // never more than the cap, even with no store
    const pid = r.pid;
    await r.stop();
    expect(r.running).toBe(false);
    expect(alive(pid)).toBe(false);
  });

  it("SIGKILL ends the process and fails its pending requests", async () => {
    const r = await spawn(UNREACHABLE, "pod-b");
    await r.request({ op: "policy", subject: "k", rateLimits: { requestsPerSecond: 10 } });
    const pending = r.request({
      op: "drive",
      subject: "k",
      tasks: 1,
      startAt: 0,
      durationMs: 5000,
      pauseMs: 10,
    });
    await r.kill("SIGKILL");
    await expect(pending).rejects.toThrow(/exited \(SIGKILL\)/);
    expect(alive(r.pid)).toBe(false);
    await expect(r.request({ op: "status" })).rejects.toThrow(/not running/);
  });

  it("rejects spawn, naming the module, when the adapter module exports no connect", async () => {
    await expect(spawn(NO_CONNECT, "pod-c")).rejects.toThrow(/exports no connect/);
  });
});
