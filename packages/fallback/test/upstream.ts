import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An upstream's answer as an error: the status and headers classify reads. */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
  ) {
    super(`upstream answered ${status}`);
  }
}

/** A local upstream: each path answers its own way; `hits` counts requests per path. */
export interface Upstream {
  base: string;
  hits: Record<string, number>;
  /** GETs `base/endpoint`; a non-2xx answer throws `UpstreamError`. */
  get(endpoint: string, signal: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/**
 * Paths: `t429` (Retry-After 30 s), `t429short` (Retry-After 2 s), `t503`, `reset` (connection
 * reset), `hang` / `hang2` (never answer), `flaky` (503 on even hits), `rare` (503 on every 2000th
 * hit, from the first), anything else 200 `hello from <path>`.
 */
export async function startUpstream(): Promise<Upstream> {
  const hits: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? "/").slice(1);
    const n = (hits[name] ?? 0) + 1;
    hits[name] = n;
    switch (name) {
      case "t429":
        res.writeHead(429, { "retry-after": "30" }).end("slow down");
        return;
      case "t429short":
        res.writeHead(429, { "retry-after": "2" }).end("slow down");
        return;
      case "t503":
        res.writeHead(503).end("unavailable");
        return;
      case "reset":
        res.socket?.resetAndDestroy();
        return;
      case "hang":
      case "hang2":
        return; // never answers
      case "flaky":
        if (n % 2 === 0) res.writeHead(503).end("unavailable");
        else res.writeHead(200).end("flaky ok");
        return;
      case "rare":
        if (n % 2000 === 1) res.writeHead(503).end("unavailable");
        else res.writeHead(200).end("rare ok");
        return;
      default:
        res.writeHead(200, { "content-type": "text/plain" }).end(`hello from ${name}`);
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    hits,
    async get(endpoint, signal) {
      const res = await fetch(`${base}/${endpoint}`, { signal });
      const text = await res.text();
      if (!res.ok) throw new UpstreamError(res.status, res.headers);
      return text;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
