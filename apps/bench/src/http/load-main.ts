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

// The walk of the scenario being run (keys in order, shared by every server and connection): one at
// a time, so the client's heap holds one walk and does not grow while servers are measured.
let walk: { signature: string; requests: Buffer[] } | undefined;

function walkOf(keys: number, deny: boolean): Buffer[] {
  const signature = `${keys}/${deny}`;
  if (walk?.signature !== signature) {
    walk = undefined;
    walk = { signature, requests: httpKeys(keys, deny).map((k) => buildRequest(HOST, k)) };
    // the walk's garbage collected now, not during the scenario's first samples
    collect();
  }
  return walk.requests;
}

process.on("message", async (m: LoadRequest) => {
  const requests = walkOf(m.keys, m.deny);
  if (m.op === "prepare") {
    process.send!({ id: m.id, ok: true });
    return;
  }
  const result = await runLoad(HOST, m.port, requests, m.connections, m.durationS);
  process.send!({ id: m.id, ok: true, result });
});
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true });
