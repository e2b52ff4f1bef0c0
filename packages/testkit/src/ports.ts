import { createServer } from "node:net";

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1. With `busOffset`, port + offset must be free too (a Redis Cluster
 * node also listens on its bus port, port + 10000).
 */
export async function freePort(busOffset?: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    if (!(await isFree(port))) continue;
    if (busOffset !== undefined && !(await isFree(port + busOffset))) continue;
    return port;
  }
  throw new Error("testkit: no free TCP port found after 200 tries");
}
