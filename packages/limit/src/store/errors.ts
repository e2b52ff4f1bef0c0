/** A store request with a field no store can act on (names the field and the value). */
export class StoreRequestError extends Error {
  override name = "StoreRequestError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** A store reply that does not have the shape the protocol fixes (wrong length, a non-number). */
export class StoreReplyError extends Error {
  override name = "StoreReplyError";
}

/** The store cannot be reached (MemoryStore.setFailing, a failed Redis round trip). */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
