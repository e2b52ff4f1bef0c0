import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const NO_REDIS_MESSAGE =
  "resil tests need a Redis server. Either start one with Docker: " +
  "`docker compose -f docker-compose.test.yml up -d` and set RESIL_TEST_REDIS_URL=redis://127.0.0.1:6390, " +
  "or install redis-server (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) " +
  "so the tests can start private instances.";

/** Absolute path of a program on PATH, or undefined. */
export function which(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The server binary (`redis-server`, else `valkey-server`) and its CLI, or a clear error saying how to get one. */
export function serverBinaries(): { server: string; cli: string | undefined } {
  const server = which("redis-server") ?? which("valkey-server");
  if (!server) throw new Error(NO_REDIS_MESSAGE);
  const cli = server.endsWith("valkey-server")
    ? (which("valkey-cli") ?? which("redis-cli"))
    : which("redis-cli");
  return { server, cli };
}
