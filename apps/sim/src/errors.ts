/** A bad command line: the message names the flag. Exit code 2. */
export class ArgsError extends Error {
  override name = "ArgsError";
}

/** A scenario that fails validation: the message names the field (and the line, for a file). Exit code 2. */
export class ScenarioError extends Error {
  override name = "ScenarioError";
  constructor(
    message: string,
    /** Dotted path of the bad field, e.g. `limiter.syncIntervalMs`. */
    readonly field: string,
    /** 1-based line in the scenario file, when the scenario came from one. */
    readonly line?: number,
  ) {
    super(message);
  }
}
