import type { ManualClock, Outcome, Store } from "@resil/limit";
import type { Scenario } from "./scenario.js";

/** What a synchronous check could decide: `undecided` means only the async `check` can answer. */
export type QuickVerdict = "allow" | "deny" | "undecided";

/** A concurrency slot: `release` gives it back; `denied` when the cap is reached; `nocap` without a cap. */
export type SlotResult = { kind: "slot"; release: () => void } | { kind: "denied" } | { kind: "nocap" };

/** The limiter outcomes the summary reports (@resil/limit docs/protocol.md#s1-6): the Limiter's own list. */
export { OUTCOMES, type Outcome } from "@resil/limit";

/**
 * One replica as the simulation drives it: the narrow slice of `Limiter` it needs, so the engine can
 * be tested with a stand-in and the adapter to the real Limiter stays small.
 */
export interface SimReplica {
  readonly pod: string;
  /** The no-I/O fast path. */
  tryCheck(cost: number): QuickVerdict;
  /** The full check; true when admitted. */
  check(cost: number): Promise<boolean>;
  /** Waits for capacity (FIFO on this replica, `Pacer`): true when admitted, false after `maxWaitMs`. */
  wait(cost: number): Promise<boolean>;
  acquire(): Promise<SlotResult>;
  /** Store time now: what `settle` takes as the time a request was decided. */
  storeTime(): number;
  /** Settles a request decided at `takenAt` by `delta` = actual − estimate units; the units applied. */
  settle(delta: number, takenAt: number): number;
  /** Starts the replica's own background sync loop (the `loop` driver). */
  start(): Promise<void>;
  /** One sync round (forced: every key). */
  sync(force: boolean): Promise<void>;
  outcome(o: Outcome): number;
  /** Round trips this replica attempted and how many failed. */
  syncRounds(): number;
  syncFailures(): number;
  /** The live replica count this replica believes in. */
  replicas(): number;
}

/** Everything a factory needs to build replica number `index` (pod `pod-<index>`). */
export interface ReplicaContext {
  index: number;
  pod: string;
  scenario: Scenario;
  store: Store;
  clock: ManualClock;
}

export type ReplicaFactory = (ctx: ReplicaContext) => SimReplica;
