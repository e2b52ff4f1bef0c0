import { ManualClock, MemoryStore, type RoundRequest } from "@resil/limit";
import { SeededRandom } from "@resil/limit/testing";
import { describe, expect, it } from "vitest";
import { FaultStore, StoreDownError } from "../src/fault-store.js";
import { FaultTimeline } from "../src/faults.js";
import { parseScenario } from "../src/scenario.js";

const beat = (pod: string): RoundRequest => ({
  releases: [],
  rates: [],
  concurrency: [],
  heartbeat: { key: "rl2:{sim}:pods", pod, windowMs: 3000, leave: false },
});

function setup(latencyMs: number, faults: unknown[] = []) {
  const clock = new ManualClock(1_750_000_000_000);
  const timeline = new FaultTimeline(parseScenario({ duration: 100, faults }).faults);
  const store = new FaultStore(new MemoryStore(clock), clock, {
    timeline,
    startMs: clock.monoMs(),
    latencyMs,
    jitterMs: 0,
    rng: new SeededRandom(1),
  });
  return { clock, store };
}

describe("FaultStore", () => {
  it("delays replies by the latency on the virtual clock", async () => {
    const { clock, store } = setup(4);
    let done = false;
    void store.round(beat("a")).then(() => (done = true));
    clock.advance(3);
    await Promise.resolve();
    expect(done).toBe(false);
    expect(store.inflight).toBe(1);
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(true);
    expect(store.inflight).toBe(0);
  });

  it("fails rounds during an outage and counts calls per pod", async () => {
    const { clock, store } = setup(0, [{ type: "outage", from: 1, to: 2 }]);
    await store.round(beat("a"));
    clock.advance(1000);
    await expect(store.round(beat("a"))).rejects.toBeInstanceOf(StoreDownError);
    clock.advance(1000);
    await store.round(beat("b"));
    expect(store.calls).toBe(3);
    expect(store.failed).toBe(1);
    expect(store.callsOf("a")).toBe(2);
  });
});
