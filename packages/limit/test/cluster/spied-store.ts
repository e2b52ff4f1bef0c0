// A MemoryStore that records every round it is sent, with the local time it was sent at.

import type { ManualClock } from "../../src/clock/manual-clock.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import type { RoundRequest, Store } from "../../src/store/types.js";

export function spiedStore(clock: ManualClock): {
  sent: { at: number; request: RoundRequest }[];
  store: Store;
} {
  const memory = new MemoryStore(clock);
  const sent: { at: number; request: RoundRequest }[] = [];
  const store: Store = {
    round(r) {
      sent.push({ at: clock.monoMs(), request: structuredClone(r) });
      return memory.round(r);
    },
  };
  return { sent, store };
}
