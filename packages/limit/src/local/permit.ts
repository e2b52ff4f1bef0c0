/**
 * Marks the scope of one rate-limited call. Releasing it does nothing: the units were spent when it
 * was granted and come back with the clock (bucket) or the next window, not on release.
 */
export interface Permit {
  readonly kind: "permit";
  /** A no-op, kept so every permit can be released the same way. */
  release(): void;
  [Symbol.dispose](): void;
}

const noop = (): void => {};

// One frozen object for every grant: the hot path allocates nothing.
export const PERMIT: Permit = Object.freeze({ kind: "permit", release: noop, [Symbol.dispose]: noop });
