/** Monotonic milliseconds; breakers read nothing else of time. */
export interface Clock {
  now(): number;
}

/** `performance.now()`: monotonic, unaffected by wall-clock steps. */
export const systemClock: Clock = { now: () => performance.now() };
