import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverBinaries } from "./binary.js";
import { freePort } from "./ports.js";
import { ping } from "./resp.js";
import { sleep } from "./sleep.js";

/** A Redis server a test suite talks to: private (started here, controllable) or external (RESIL_TEST_REDIS_URL). */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** `redis://host:port` */
  readonly url: string;
  /** True when the server came from RESIL_TEST_REDIS_URL: it cannot be stopped, paused or restarted. */
  readonly external: boolean;
  /** PID of the running private server process, undefined when stopped or external. */
  readonly pid: number | undefined;
  /** Stops the server by PID, waits for the process to exit and removes its directory. Idempotent. */
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections open but answers nothing (a "slow" or hung Redis). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** Stops it (if running) and starts a fresh, empty server on the same port. */
  restart(): Promise<void>;
}

export interface StartOptions {
  /** Start a private server even when RESIL_TEST_REDIS_URL is set (needed to stop, pause or restart it). */
  controllable?: boolean;
  /** Extra redis-server arguments, e.g. `["--cluster-enabled", "yes"]`. */
  args?: string[];
  /** Port to use; a free one is picked when absent. */
  port?: number;
  /** How long to wait for PING to answer after start, ms (default 10 000). */
  readyTimeoutMs?: number;
}

const live = new Set<number>();
let exitHookInstalled = false;

// A crashed or interrupted suite must not leave servers behind: kill what is still live on exit.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of live) {
      try {
        process.kill(pid, "SIGCONT");
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

class PrivateServer implements RedisServer {
  readonly host = "127.0.0.1";
  readonly external = false;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly dir: string;

  constructor(
    readonly port: number,
    private readonly args: string[],
    private readonly readyTimeoutMs: number,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), "resil-redis-"));
  }

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async launch(): Promise<void> {
    const { server } = serverBinaries();
    installExitHook();
    const child = spawn(
      server,
      [
        "--port",
        String(this.port),
        "--bind",
        this.host,
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        this.dir,
        "--protected-mode",
        "no",
        ...this.args,
      ],
      { stdio: "ignore" },
    );
    const pid = child.pid;
    if (pid === undefined) throw new Error(`testkit: could not spawn ${server}`);
    live.add(pid);
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once("exit", () => {
        live.delete(pid);
        resolve();
      });
    });
    const deadline = Date.now() + this.readyTimeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) break;
      if (await ping(this.port, 200)) return;
      await sleep(20);
    }
    await this.stopProcess();
    throw new Error(
      `testkit: redis-server on port ${this.port} did not answer PING within ${this.readyTimeoutMs} ms`,
    );
  }

  async stop(): Promise<void> {
    await this.stopProcess();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async stopProcess(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    this.child = undefined;
    const pid = child.pid;
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, "SIGCONT"); // a paused server only handles SIGTERM once continued
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
      const killTimer = setTimeout(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, 3000);
      await this.exited;
      clearTimeout(killTimer);
    }
  }

  pause(): void {
    const pid = this.requirePid("pause");
    process.kill(pid, "SIGSTOP");
  }

  resume(): void {
    const pid = this.requirePid("resume");
    process.kill(pid, "SIGCONT");
  }

  async restart(): Promise<void> {
    await this.stopProcess();
    await this.launch();
  }

  private requirePid(what: string): number {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error(`testkit: cannot ${what} a server that is not running`);
    return pid;
  }
}

class ExternalServer implements RedisServer {
  readonly external = true;
  readonly pid = undefined;
  readonly host: string;
  readonly port: number;

  constructor(readonly url: string) {
    const u = new URL(url);
    this.host = u.hostname || "127.0.0.1";
    this.port = Number(u.port || 6379);
  }

  async stop(): Promise<void> {
    // An external server belongs to the user: leave it running.
  }
  pause(): void {
    throw new Error(ExternalServer.refusal("pause"));
  }
  resume(): void {
    throw new Error(ExternalServer.refusal("resume"));
  }
  async restart(): Promise<void> {
    throw new Error(ExternalServer.refusal("restart"));
  }

  private static refusal(what: string): string {
    return `testkit: cannot ${what} the external server of RESIL_TEST_REDIS_URL; use startRedis({ controllable: true })`;
  }
}

/**
 * The Redis server for a suite: RESIL_TEST_REDIS_URL when set (unless `controllable`), otherwise a
 * private `redis-server`/`valkey-server` on a free port, ready when this resolves. Stop it in `afterAll`.
 */
export async function startRedis(opts: StartOptions = {}): Promise<RedisServer> {
  const url = process.env.RESIL_TEST_REDIS_URL;
  if (url && !opts.controllable) {
    const ext = new ExternalServer(url);
    if (!(await ping(ext.port, 1000, ext.host))) {
      throw new Error(`testkit: RESIL_TEST_REDIS_URL=${url} does not answer PING`);
    }
    return ext;
  }
  const port = opts.port ?? (await freePort());
  const srv = new PrivateServer(port, opts.args ?? [], opts.readyTimeoutMs ?? 10_000);
  await srv.launch();
  return srv;
}
