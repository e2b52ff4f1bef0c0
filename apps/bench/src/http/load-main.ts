// The HTTP case's load generator process: a raw keep-alive client (raw-client.ts), the key in `x-key`.
import { httpKeys } from "./keys.js";
import { buildRequest, type RawLoadResult, runLoad } from "./raw-client.js";

/** `prepare` builds a scenario's walk ahead of its samples; `load` runs one sample (a warm-up or a measure). */
export type LoadRequest = { id: number; keys: number; deny: boolean } & (
  | { op: "prepare" }
  | { op: "load"; port: number; durationS: number; connections: number }
);

export type LoadResult = RawLoadResult;

const HOST = "127.0.0.1";
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

interface Walk {
  signature: string;
  requests: Buffer[];
  /** Where each server (by port) is in the walk: its next run goes on from there, so that over a
   * scenario's samples every server meets every key, not only the first seconds' worth. */
  cursors: Map<number, number>;
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
  const result = await runLoad(HOST, m.port, w.requests, m.connections, m.durationS, start);
  w.cursors.set(m.port, result.next);
  process.send!({ id: m.id, ok: true, result });
});
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true });
