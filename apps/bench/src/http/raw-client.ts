import { connect, type Socket } from "node:net";

/** What one run of the raw client measured. */
export interface RawLoadResult {
  requests: number;
  seconds: number;
  non2xx: number;
  p99Ms: number;
  errors: number;
  /** Where the walk stopped: the index of the request the next run should start from. */
  next: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = Buffer.from("content-length:");
const CHUNKED_END = Buffer.from("0\r\n\r\n");

/** Where the response at the start of `buf` ends and its status, or undefined while incomplete. */
function parseResponse(buf: Buffer): [end: number, status: number] | undefined {
  const head = buf.indexOf(HEADER_END);
  if (head < 0) return undefined;
  const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48);
  const lower = buf
    .subarray(0, head + 2)
    .toString("latin1")
    .toLowerCase();
  const at = lower.indexOf(CONTENT_LENGTH.toString("latin1"));
  if (at >= 0) {
    const length = Number.parseInt(lower.slice(at + CONTENT_LENGTH.length, lower.indexOf("\r", at)), 10);
    const end = head + 4 + length;
    return buf.length >= end ? [end, status] : undefined;
  }
  const chunkEnd = buf.indexOf(CHUNKED_END, head + 4);
  return chunkEnd < 0 ? undefined : [chunkEnd + CHUNKED_END.length, status];
}

/**
 * A minimal HTTP/1.1 keep-alive load generator: `connections` sockets, each sending the next prebuilt
 * request (a shared walk over `requests`) as soon as the previous answer is complete, for `durationS`.
 * Cheaper per request than a general client, so the server, not the client, is what saturates.
 */
export function runLoad(
  host: string,
  port: number,
  requests: readonly Buffer[],
  connections: number,
  durationS: number,
  /** Where in `requests` to start (a run that goes on with the walk of the one before). */
  start = 0,
  /** Requests sent at most (a walk over every key once: `requests.length`), besides `durationS`. */
  maxRequests = Number.POSITIVE_INFINITY,
  /** Told the index of each request as it is sent (when its key was last seen, for revisit ages). */
  onSend?: (index: number) => void,
): Promise<RawLoadResult> {
  let next = start % requests.length;
  let sent = 0;
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  let latencies = new Float64Array(1 << 16);
  const started = performance.now();
  const endAt = started + durationS * 1000;
  let open = connections;
  const sockets: Socket[] = [];
  return new Promise((resolve) => {
    // A server that stops answering must not hang the case: cut every socket 5 s after the end.
    const guard = setTimeout(
      () => {
        for (const s of sockets) s.destroy();
      },
      durationS * 1000 + 5000,
    );
    const finish = () => {
      if (--open > 0) return;
      clearTimeout(guard);
      const seconds = (performance.now() - started) / 1000;
      const sorted = latencies.subarray(0, done).sort();
      const p99Ms = sorted[Math.floor(0.99 * (done - 1))] ?? 0;
      resolve({ requests: done, seconds, non2xx, p99Ms, errors, next });
    };
    for (let c = 0; c < connections; c++) {
      const socket: Socket = connect(port, host);
      sockets.push(socket);
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        if (sent >= maxRequests || performance.now() >= endAt) {
          socket.end();
          return;
        }
        sent++;
        onSend?.(next);
        const req = requests[next]!;
        next = next + 1 === requests.length ? 0 : next + 1;
        sentAt = performance.now();
        socket.write(req);
      };
      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const parsed = parseResponse(pending);
        if (parsed === undefined) return;
        pending = pending.subarray(parsed[0]);
        if (done === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[done++] = performance.now() - sentAt;
        if (parsed[1] < 200 || parsed[1] > 299) non2xx++;
        send();
      });
      socket.on("error", () => {
        errors++;
      });
      socket.on("close", finish);
    }
  });
}

/** The request of one key: `GET /` with the key in `x-key`, keep-alive (the same bytes for every server). */
export function buildRequest(host: string, key: string): Buffer {
  return Buffer.from(`GET / HTTP/1.1\r\nhost: ${host}\r\nx-key: ${key}\r\n\r\n`, "latin1");
}
