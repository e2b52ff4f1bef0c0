import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { childFlags } from "../built.js";

const here = dirname(fileURLToPath(import.meta.url));

interface Answer {
  id: number;
  ok: boolean;
  error?: string;
  [field: string]: unknown;
}

/** A child process of the HTTP case (server or load generator) answering requests over IPC. */
export class Child {
  private nextId = 1;
  private readonly waiting = new Map<number, (a: Answer) => void>();
  readonly ready: Promise<Answer>;

  private constructor(private readonly proc: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      this.waiting.set(0, resolve);
      proc.once("exit", (code) => {
        const err = new Error(`bench child exited (${String(code)})`);
        for (const [, settle] of this.waiting) settle({ id: -1, ok: false, error: err.message });
        reject(err);
      });
    });
    proc.on("message", (a: Answer) => {
      const settle = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      settle?.(a);
    });
  }

  /**
   * Starts `script` (next to this file), loading resil's packages as this process does, on `cpu` if
   * it can, with `nodeFlags` before the script (node options NODE_OPTIONS does not take).
   */
  static start(script: string, args: string[], cpu?: number, nodeFlags: string[] = []): Child {
    const proc = spawn(process.execPath, [...nodeFlags, ...childFlags(), `${here}/${script}`, ...args], {
      cwd: here,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    if (cpu !== undefined && proc.pid !== undefined) pin(proc.pid, cpu);
    return new Child(proc);
  }

  /** Sends a request and waits for its answer; throws on an error answer or after `timeoutMs`. */
  async request<T extends Answer>(body: Record<string, unknown>, timeoutMs = 120_000): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<Answer>((resolve) => this.waiting.set(id, resolve));
    this.proc.send({ ...body, id });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Answer>((resolve) => {
      timer = setTimeout(() => resolve({ id, ok: false, error: `no answer in ${timeoutMs} ms` }), timeoutMs);
    });
    const a = await Promise.race([answer, timeout]);
    clearTimeout(timer);
    if (!a.ok) throw new Error(a.error ?? "bench child failed");
    return a as T;
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
  }
}

/**
 * Keeps a process on one CPU (`taskset`), so that the server under test and the load generator do
 * not take turns on the same core; a no-op with fewer than 2 CPUs, without taskset, or BENCH_PIN=0.
 * Returns whether it pinned.
 */
export function pin(pid: number, cpu: number): boolean {
  if (pid <= 0 || process.env.BENCH_PIN === "0" || availableParallelism() < 2) return false;
  const r = spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
  return r.status === 0;
}
