// A store unreachable from the start comes back; its first round is slow (it loads the scripts, and
// the store reads its clock late in it), so the clock offset sampled on it is off by up to half that
// round trip. Pacing the recovery until the store's second is over must allow for that error, or a
// replica asks the store for credit while the store's second still runs and spends it beside the
// fail-static shares (docs/protocol.md#s4). Manual clock, 4 replicas, fixed 50/s, 5x offered load.

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock/manual-clock.js";
import { Limiter } from "../../src/cluster/limiter.js";
import { StoreUnavailableError } from "../../src/store/errors.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundReply, RoundRequest, Store } from "../../src/store/types.js";

const LIMIT = 50;
const REPLICAS = 4;

/** Down until `down` is cleared; then each pod's first round reaches the store `firstMs` late. */
class ComingBack implements Store {
  down = true;
  private readonly answered = new Set<string>();
  constructor(
    private readonly inner: MemoryStore,
    private readonly clock: ManualClock,
    private readonly firstMs: number,
  ) {}
  async round(request: RoundRequest): Promise<RoundReply> {
    if (this.down) throw new StoreUnavailableError("down");
    const pod = request.heartbeat?.pod ?? request.rates[0]?.pod ?? "";
    const first = !this.answered.has(pod);
    this.answered.add(pod);
    if (first) await new Promise<void>((r) => this.clock.setTimer(this.firstMs, r));
    return this.inner.round(request);
  }
}

/** Admits per store second: replicas started `staggerMs` apart, the store back at `upAtMs` of a 5 s run. */
async function admitsPerSecond(upAtMs: number, firstMs: number, staggerMs: number): Promise<number[]> {
  const clock = new ManualClock();
  const store = new ComingBack(new MemoryStore(clock), clock, firstMs);
  const replicas = Array.from(
    { length: REPLICAS },
    (_, i) => new Limiter({ service: "t", podId: `p${i}`, expectedReplicas: REPLICAS }, store, clock),
  );
  for (const l of replicas) {
    l.setPolicy("k", { algorithm: "fixed_window", requestsPerSecond: LIMIT, localAllowance: 0.8 });
    await l.start();
    await clock.advanceAsync(staggerMs);
  }
  clock.set(Math.ceil(clock.unixMs() / 1000) * 1000);
  const t0 = clock.unixMs();
  const seconds = [0, 0, 0, 0, 0];
  const count = (kind: string) => {
    if (kind !== "deny") seconds[Math.floor((clock.unixMs() - t0) / 1000)]!++;
  };
  for (let ms = 0; ms < 5000; ms++) {
    if (ms === upAtMs) store.down = false;
    if (ms % 4 === 0) {
      // 250 a second, round-robin: 5x the limit
      const l = replicas[(ms / 4) % REPLICAS]!;
      const d = l.tryCheck("k");
      if (d !== undefined) count(d.kind);
      else void l.check("k").then((x) => count(x.kind));
    }
    await clock.advanceAsync(1);
  }
  const closing = Promise.all(replicas.map((l) => l.shutdown()));
  await clock.advanceAsync(3000);
  await closing;
  return seconds;
}

describe("scan", () => {
  it("scan", async () => {
    const bad: string[] = [];
    let runs = 0;
    for (const stagger of [0, 60, 111, 173, 240])
      for (const first of [1, 30])
        for (let up = 2000; up < 3000; up += 100) {
          runs++;
          const s = await admitsPerSecond(up, first, stagger);
          if (Math.max(...s) > 53) bad.push(`stagger ${stagger} first ${first} up ${up}: ${s.join(" ")}`);
        }
    console.log(`SCAN ${bad.length}/${runs}\n${bad.join("\n")}`);
  }, 600_000);
});
