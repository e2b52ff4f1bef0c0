// One Limiter replica in its own process, driven by its parent over IPC (see replica-process.ts).
// Run as: node --conditions=source --import tsx replica-runner.ts '<ReplicaConfig JSON>'
import { pathToFileURL } from "node:url";
import { Limiter, RedisStore, type Slot } from "@resil/limit";
import type { AdapterModule, ExecHandle } from "./exec-handle.js";
import { driveLoad } from "./load-driver.js";
import type {
  HoldResult,
  ReplicaAnswer,
  ReplicaConfig,
  ReplicaEnvelope,
  ReplicaRequest,
  ReplicaStatus,
} from "./replica-protocol.js";
import { sleep } from "./sleep.js";

function send(answer: ReplicaAnswer): void {
  process.send?.(answer);
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

async function loadAdapter(path: string): Promise<AdapterModule> {
  const mod: Partial<AdapterModule> = await import(pathToFileURL(path).href);
  if (typeof mod.connect !== "function") throw new Error(`replica: ${path} exports no connect(url)`);
  return mod as AdapterModule;
}

class Replica {
  private readonly held: Slot[] = [];

  constructor(
    readonly limiter: Limiter,
    private readonly handle: ExecHandle,
  ) {}

  status(): ReplicaStatus {
    const l = this.limiter;
    return { podId: l.podId, replicas: l.replicas(), storeFailing: l.storeFailing() };
  }

  async answer(r: ReplicaRequest): Promise<unknown> {
    switch (r.op) {
      case "policy":
        this.limiter.setPolicy(r.subject, r.rateLimits, r.maxConcurrent);
        return null;
      case "status":
        return this.status();
      case "drive":
        return driveLoad([this.limiter], r);
      case "hold":
        return this.hold(r.subject, r.want, r.timeoutMs, r.pauseMs);
      case "shutdown":
        await this.close();
        return null;
    }
  }

  // Acquires until `want` slots are held (kept until shutdown) or `timeoutMs` passed.
  private async hold(subject: string, want: number, timeoutMs: number, pauseMs: number): Promise<HoldResult> {
    const t0 = Date.now();
    let attempts = 0;
    let mine = 0;
    while (mine < want && attempts < 10_000 && Date.now() - t0 < timeoutMs) {
      attempts++;
      const r = await this.limiter.acquire(subject);
      if (r.kind === "acquired") {
        this.held.push(r.slot);
        mine++;
      } else if (r.kind === "unlimited") {
        throw new Error(`replica: ${subject} has no concurrency cap`);
      }
      if (mine < want) await sleep(pauseMs);
    }
    return { held: mine, elapsedMs: Date.now() - t0, attempts };
  }

  async close(): Promise<void> {
    for (const s of this.held.splice(0)) s.release();
    await this.limiter.shutdown();
    await this.handle.close();
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "null") as ReplicaConfig | null;
  if (!config) throw new Error("replica: missing config argument");
  const adapter = await loadAdapter(config.adapterModule);
  const handle = await adapter.connect(config.url);
  const limiter = new Limiter(config.options, new RedisStore(handle.exec));
  const replica = new Replica(limiter, handle);
  await limiter.start();

  process.on("message", (m: ReplicaEnvelope) => {
    replica.answer(m.request).then(
      (value) => {
        send({ id: m.id, ok: true, value });
        if (m.request.op === "shutdown") process.disconnect();
      },
      (err: unknown) => send({ id: m.id, ok: false, error: describeError(err) }),
    );
  });
  send({ id: 0, ok: true, value: replica.status() });
}

// An orphan must not outlive its parent: the IPC channel closing means the parent is gone or done.
process.on("disconnect", () => process.exit());

main().catch((err: unknown) => {
  send({ id: 0, ok: false, error: describeError(err) });
  process.exitCode = 1;
  process.disconnect?.();
});
