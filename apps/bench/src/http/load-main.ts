// The HTTP case's load generator process: a raw keep-alive client (raw-client.ts), the key in `x-key`.
import { httpKeys } from "./keys.js";
import { buildRequest, type RawLoadResult, runLoad } from "./raw-client.js";

export interface LoadRequest {
  id: number;
  op: "load";
  port: number;
  keys: number;
  deny: boolean;
  durationS: number;
  connections: number;
}

export type LoadResult = RawLoadResult;

const HOST = "127.0.0.1";
const MAX_WALKS = 16;
// the requests of each server and walk, kept: the HTTP case takes turns between servers
const built = new Map<string, Buffer[]>();

process.on("message", async (m: LoadRequest) => {
  // The walk is the same for every variant: keys in order, shared by all connections.
  const signature = `${m.port}/${m.keys}/${m.deny}`;
  let requests = built.get(signature);
  if (requests === undefined) {
    // one walk's requests at a time: a million-key walk per server would hold gigabytes
    if (built.size >= MAX_WALKS) built.clear();
    requests = httpKeys(m.keys, m.deny).map((k) => buildRequest(HOST, m.port, k));
    built.set(signature, requests);
  }
  const result = await runLoad(HOST, m.port, requests, m.connections, m.durationS);
  process.send!({ id: m.id, ok: true, result });
});
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true });
