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
let built: { signature: string; requests: Buffer[] } | undefined;

process.on("message", async (m: LoadRequest) => {
  // The walk is the same for every variant: keys in order, shared by all connections.
  const signature = `${m.port}/${m.keys}/${m.deny}`;
  if (built?.signature !== signature) {
    built = { signature, requests: httpKeys(m.keys, m.deny).map((k) => buildRequest(HOST, m.port, k)) };
  }
  const result = await runLoad(HOST, m.port, built.requests, m.connections, m.durationS);
  process.send!({ id: m.id, ok: true, result });
});
process.on("disconnect", () => process.exit(0));
process.send!({ id: 0, ok: true });
