import type { RedisExec } from "@resil/limit";

/** A RedisExec over a fresh client of some adapter, and how to close that client. */
export interface ExecHandle {
  exec: RedisExec;
  close(): Promise<void>;
}

/**
 * What a store package's adapter module exports so a replica child process can load it by path:
 * a fresh client for `url`, connected and ready when this resolves, that survives outages (handles
 * the client's error events, fails commands fast while disconnected, reconnects on its own).
 */
export interface AdapterModule {
  connect(url: string): Promise<ExecHandle>;
}

/** How a store package runs the Limiter scenarios through its client, in this process and in children. */
export interface LimiterAdapter extends AdapterModule {
  name: string;
  /** Absolute path of the module that exports this `connect`, loaded by replica child processes. */
  module: string;
}
