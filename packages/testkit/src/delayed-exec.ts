import type { RedisCommand, RedisExec, RedisReply } from "@resil/limit";

/** A RedisExec that waits `delayMs` before each pipeline: a slow Redis, or a far one. */
export class DelayedExec implements RedisExec {
  constructor(
    private readonly inner: RedisExec,
    public delayMs: number,
  ) {}

  async pipeline(commands: readonly RedisCommand[]): Promise<RedisReply[]> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    return this.inner.pipeline(commands);
  }
}

/** Calls per command name from `INFO commandstats` (e.g. `{ evalsha: 120, hdel: 3 }`). */
export function commandCalls(info: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}
