// Shared by the manual-clock store tests: replicas on one store, and the store's own count of a key.

import type { ManualClock } from "../../src/clock/manual-clock.js";
import type { RateLimitConfig } from "../../src/cluster/config.js";
import { configHash, rateStoreKey } from "../../src/cluster/keys.js";
import { Limiter } from "../../src/cluster/limiter.js";
import type { MemoryStore } from "../../src/store/memory-store.js";
import type { Store, WindowSpec } from "../../src/store/types.js";
import { rate } from "../store/rate-request.js";

/** The store's count of `subject`'s current fixed window (service "t"), read without a push. */
export function storeCount(
  store: MemoryStore,
  clock: ManualClock,
  spec: WindowSpec[],
  subject = "k",
): number {
  const key = rateStoreKey("t", subject, configHash(0, spec));
  const probe = rate({ key, windows: spec, pod: "probe", replicas: 1, leaseTtlMs: 1 });
  return store.rate(probe, clock.unixMs()).windows[0]!.cur;
}

/** `n` replicas of service "t" on one store, each with `policy` on subject "k", having seen each other. */
export async function replicasOn(
  store: Store,
  clock: ManualClock,
  n: number,
  policy: RateLimitConfig,
): Promise<Limiter[]> {
  const out = Array.from(
    { length: n },
    (_, i) => new Limiter({ service: "t", podId: `p${i}` }, store, clock),
  );
  for (const l of out) l.setPolicy("k", policy);
  for (let pass = 0; pass < 2; pass++) for (const l of out) await l.syncNow(true);
  return out;
}

/** At a multiple of 4 ms, the next replica in turn checks `subject` (250 a second round-robin); `count` gets each outcome. */
export function offerEvery4Ms(
  replicas: readonly Limiter[],
  ms: number,
  count: (kind: string) => void,
  subject = "k",
): void {
  if (ms % 4 !== 0) return;
  const l = replicas[(ms / 4) % replicas.length]!;
  const d = l.tryCheck(subject);
  if (d !== undefined) count(d.kind);
  else void l.check(subject).then((x) => count(x.kind));
}
