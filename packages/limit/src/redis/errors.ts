/** A command of a round failed on the server (other than a missing script, which is reloaded). */
export class RedisCommandError extends Error {
  override name = "RedisCommandError";
  constructor(
    /** The command name, e.g. "EVALSHA". */
    readonly command: string,
    /** Position of the command in its pipeline. */
    readonly index: number,
    cause: Error,
  ) {
    super(`RedisStore: ${command} (command ${index} of the round) failed: ${cause.message}`, { cause });
  }
}
