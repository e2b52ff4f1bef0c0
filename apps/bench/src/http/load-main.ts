// The HTTP case's load generator process: a raw keep-alive client (raw-client.ts), the key in `x-key`.
import { httpKeys } from "./keys.js";
import { buildRequest, type RawLoadResult, runLoad } from "./raw-client.js";
import { Revisits } from "./revisits.js";

/**
 * `prepare` builds a scenario's walk ahead of its samples; `load` runs one sample (a warm-up or a
 * measure), or with `most` sends that many requests of the walk (at most `durationS`).
 */
export type LoadRequest = { id: number; keys: number; deny: boolean } & (
  | { op: "prepare" }
  | { op: "load"; port: number; durationS: number; connections: number; most?: number }
);

/** A run's figures, and how long ago this server last got the keys it got again (median, seconds; NaN: none). */
export type LoadResult = RawLoadResult & { revisitS: number };

const HOST = "127.0.0.1";
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

interface Walk {
  signature: string;
  requests: Buffer[];
  /** Where each server (by port) is in the walk: its next run goes on from there, so that over a
   * scenario's samples every server meets every key, not only the first seconds' worth. */
  cursors: Map<number, number>;
  /** When each server (by port) last got each key (performance.now() ms; 0: not in this scenario). */
  lastSent: Map<number, Float64Array>;
}

// The walk of the scenario being run (keys in order, the same bytes for every server): one at a
// time, so the client's heap holds one walk and does not grow while servers are measured.
let walk: Walk | undefined;

function walkOf(keys: number, deny: boolean): Walk {
  const signature = `${keys}/${deny}`;
  if (walk?.signature !== signature) {
    walk = undefined;
    walk = {
      signature,
      requests: httpKeys(keys, deny).map((k) => buildRequest(HOST, k)),
      cursors: new Map(),
      lastSent: new Map(),
    };
    // the walk's garbage collected now, not during the scenario's first samples
    collect();
  }
  return walk;
}

process.on("message", async (m: LoadRequest) => {
  const w = walkOf(m.keys, m.deny);
  if (m.op === "prepare") {
    process.send!({ id: m.id, ok: true });
    return;
  }
  const start = w.cursors.get(m.port) ?? 0;
  let last = w.lastSent.get(m.port);
  if (last === undefined) {
    last = new Float64Array(w.requests.length);
    w.lastSent.set(m.port, last);
  }
  const ages = new Revisits(last);
  const onSend = (i: number) => ages.sent(i, performance.now());
  const most = m.most ?? Number.POSITIVE_INFINITY;
  const run = await runLoad(HOST, m.port, w.requests, m.connections, m.durationS, start, most, onSend);
  w.cursors.set(m.port, run.next);
  const result: LoadResult = { ...run, revisitS: ages.medianS() };
  process.send!({ id: m.id, ok: true, result });
});
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true });
