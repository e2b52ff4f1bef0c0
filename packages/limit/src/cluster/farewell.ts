import type { Release } from "../store/types.js";
import type { ConcurrencyKeyState } from "./concurrency-key.js";
import type { SubjectMaps } from "./exchange.js";
import type { RateKeyState } from "./rate-key.js";
import { MAX_ROUNDS_IN_FLIGHT } from "./schedule.js";
import { claim, type SyncEnv } from "./sync-maths.js";

/** What shutdown's last rounds need of the exchange: its send, which never rejects. */
export type FarewellSend = (
  rates: RateKeyState[],
  caps: ConcurrencyKeyState[],
  heartbeat: "leave" | undefined,
  releases: Release[],
) => Promise<void>;

/**
 * Shutdown's last words (docs/protocol.md#s3-8): pushes the admits the store has not seen, then
 * releases this replica's leases and leaves the registry. Both go in rounds of maxKeysPerRound, a few
 * in flight, as background rounds do: one round of every key outlasts roundTimeoutMs once there are
 * tens of thousands. After a failed round the rest of its phase is not sent (the store is failing).
 */
export async function farewell(env: SyncEnv, subjects: SubjectMaps, send: FarewellSend): Promise<void> {
  const pod = env.options.podId;
  const limit = env.options.maxKeysPerRound;
  const rates = [...subjects.rates.values()].filter((k) => !k.localOnly);
  const caps = [...subjects.caps.values()].filter((c) => !c.localOnly);
  // a key with nothing unpushed has nothing to say: the release below hands back its credit
  const toPush = rates.filter((k) => !k.nothingToPush());
  const pushParts: (() => Promise<void>)[] = [];
  for (let i = 0; i < Math.max(toPush.length, caps.length); i += limit) {
    const r = toPush.slice(i, i + limit);
    const c = caps.slice(i, i + limit);
    // claimed as the part leaves: a part never sent leaves its keys unclaimed
    pushParts.push(() => send(r.filter(claim), c.filter(claim), undefined, []));
  }
  await inFlight(pushParts, failedSince(env));

  // tried even when a push failed, as a store answering late may still take them
  const releases: Release[] = [];
  for (const k of rates) releases.push({ key: k.storeKey, pod });
  for (const c of caps) if (c.active === 0) releases.push({ key: c.storeKey, pod });
  const releaseParts: (() => Promise<void>)[] = [];
  for (let i = 0; i < releases.length; i += limit) {
    const part = releases.slice(i, i + limit);
    releaseParts.push(() => send([], [], undefined, part));
  }
  const failed = failedSince(env);
  await inFlight(releaseParts, failed);
  // the registry is left last, once the leases are gone
  if (!failed()) await send([], [], "leave", []);
}

/** True once a round has failed after this call. */
function failedSince(env: SyncEnv): () => boolean {
  const failures = env.health.failureCount;
  return () => env.health.failureCount !== failures;
}

/** Runs `parts` in order, at most MAX_ROUNDS_IN_FLIGHT at once; none starts once `stop()` holds. */
async function inFlight(parts: readonly (() => Promise<void>)[], stop: () => boolean): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < parts.length && !stop()) await parts[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(MAX_ROUNDS_IN_FLIGHT, parts.length) }, lane));
}
