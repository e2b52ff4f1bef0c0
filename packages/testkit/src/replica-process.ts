import { type ChildProcess, spawn } from "node:child_process";
import { dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  ReplicaAnswer,
  ReplicaConfig,
  ReplicaOp,
  ReplicaReplies,
  ReplicaRequest,
  ReplicaStatus,
} from "./replica-protocol.js";

const here = fileURLToPath(import.meta.url);
// Next to this file, with its extension: .ts when run from source (tsx), .js from dist.
const RUNNER = `${dirname(here)}/replica-runner${extname(here)}`;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

// A crashed suite must not leave replicas behind (they also exit when their IPC channel closes).
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** A Limiter replica running in a child process (replica-runner), answering requests over IPC. */
export class ReplicaProcess {
  /** The status the replica reported once started. */
  startup: ReplicaStatus | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stderr = "";
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    live.add(child);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        live.delete(child);
        this.failAll(new Error(`replica ${child.pid} exited (${signal ?? code})${this.tail()}`));
        resolve();
      });
    });
    child.stderr?.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    child.on("message", (m: ReplicaAnswer) => this.settle(m));
  }

  /**
   * Spawns a replica (`process.execPath --conditions=source --import tsx`) and resolves with it once its
   * Limiter has started; rejects (and kills the child) when it reports an error or takes `readyTimeoutMs`.
   */
  static async spawn(config: ReplicaConfig, readyTimeoutMs = 20_000): Promise<ReplicaProcess> {
    installExitHook();
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", RUNNER, JSON.stringify(config)],
      // cwd inside the workspace, so `--import tsx` resolves from its node_modules
      { cwd: dirname(here), stdio: ["ignore", "ignore", "pipe", "ipc"] },
    );
    const replica = new ReplicaProcess(child);
    try {
      replica.startup = await replica.await<ReplicaStatus>(0, readyTimeoutMs);
    } catch (err) {
      await replica.kill();
      throw err;
    }
    return replica;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True while the child process runs. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends one request and resolves with its answer; rejects on an error answer, the child's exit, or the timeout. */
  request<K extends ReplicaOp>(
    request: Extract<ReplicaRequest, { op: K }>,
    timeoutMs = 15_000,
  ): Promise<ReplicaReplies[K]> {
    const id = this.nextId++;
    const answer = this.await<ReplicaReplies[K]>(id, timeoutMs);
    if (!this.running || !this.child.connected) {
      this.settle({ id, ok: false, error: `replica ${this.pid} is not running` });
    } else {
      this.child.send({ id, request });
    }
    return answer;
  }

  /** Sends `signal` (SIGKILL by default) and waits for the process to exit. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }

  /** Orderly stop: `shutdown` (leases released, registry left), then exit; SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 5000): Promise<void> {
    if (this.running) {
      await this.request({ op: "shutdown" }, timeoutMs).catch(() => undefined);
      const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private await<T>(id: number, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`replica ${this.pid}: no answer to request ${id} in ${timeoutMs} ms${this.tail()}`));
      }, timeoutMs);
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject, timer });
    });
  }

  private settle(m: ReplicaAnswer): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(`replica ${this.pid}: ${m.error}${this.tail()}`));
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(err);
    }
  }

  private tail(): string {
    return this.stderr ? `\n--- replica stderr ---\n${this.stderr}` : "";
  }
}
