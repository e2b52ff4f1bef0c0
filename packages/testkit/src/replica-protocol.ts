import type { LimiterOptions, RateLimitConfig } from "@resil/limit";
import type { LoadResult } from "./load-driver.js";

/** How the parent configures one replica child process (passed as JSON in argv[2]). */
export interface ReplicaConfig {
  /** Absolute path of a module exporting `connect(url): Promise<ExecHandle>` (the adapter under test). */
  adapterModule: string;
  /** Redis URL the replica connects to. */
  url: string;
  /** Limiter options (service, podId, timeouts); the store is built by the child. */
  options: LimiterOptions;
}

/** The requests a replica child answers, by `op`. */
export type ReplicaRequest =
  | { op: "policy"; subject: string; rateLimits: RateLimitConfig | null; maxConcurrent?: number }
  | { op: "status" }
  | { op: "drive"; subject: string; tasks: number; startAt: number; durationMs: number; pauseMs: number }
  | { op: "hold"; subject: string; want: number; timeoutMs: number; pauseMs: number }
  | { op: "shutdown" };

export type ReplicaOp = ReplicaRequest["op"];

export interface ReplicaStatus {
  podId: string;
  replicas: number;
  storeFailing: boolean;
}

/** Slots a replica acquired and keeps holding, and how long it took to get them (or to give up). */
export interface HoldResult {
  held: number;
  elapsedMs: number;
  attempts: number;
}

/** The answer to each request, by `op`. */
export interface ReplicaReplies {
  policy: null;
  status: ReplicaStatus;
  drive: LoadResult;
  hold: HoldResult;
  shutdown: null;
}

/** Parent -> child. */
export interface ReplicaEnvelope {
  id: number;
  request: ReplicaRequest;
}

/** Child -> parent. Id 0 is the start-up report (the child's status once `start()` resolved). */
export type ReplicaAnswer =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string };
