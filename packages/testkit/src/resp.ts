import { connect } from "node:net";

/** Sends one command in RESP form and resolves with the raw first reply (no client library needed). */
export function rawCommand(
  port: number,
  args: string[],
  timeoutMs = 1000,
  host = "127.0.0.1",
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host });
    let data = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on ${host}:${port} did not answer ${args[0]} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("connect", () => {
      let msg = `*${args.length}\r\n`;
      for (const a of args) msg += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
      socket.write(msg);
    });
    socket.on("data", (chunk) => {
      data += chunk.toString("utf8");
      if (replyComplete(data)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data);
      }
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

// Simple replies end at the first CRLF; a bulk string ends once its announced length has arrived.
function replyComplete(data: string): boolean {
  const eol = data.indexOf("\r\n");
  if (eol < 0) return false;
  if (data[0] !== "$") return true;
  const len = Number(data.slice(1, eol));
  return len < 0 || Buffer.byteLength(data) >= eol + 2 + len + 2;
}

/** True when the server answers PING with PONG within the timeout. */
export async function ping(port: number, timeoutMs = 500, host = "127.0.0.1"): Promise<boolean> {
  try {
    return (await rawCommand(port, ["PING"], timeoutMs, host)).startsWith("+PONG");
  } catch {
    return false;
  }
}

/**
 * Deletes every key of `service` (rate and concurrency hashes, the registry): a retried test starts
 * from an empty store, as its first attempt did.
 */
export async function forgetService(port: number, service: string): Promise<void> {
  for (const pattern of [`*{${service}:*`, `*{${service}}*`]) {
    const keys = (await rawCommand(port, ["KEYS", pattern]))
      .split("\r\n")
      .filter((line) => line !== "" && !line.startsWith("*") && !line.startsWith("$"));
    if (keys.length > 0) await rawCommand(port, ["DEL", ...keys]);
  }
}
