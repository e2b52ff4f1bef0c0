/**
 * What a Limiter tells its operator (`LimiterOptions.onEvent`): the store turning failing and
 * recovering, and decisions made without a reply (overruns). See docs/protocol.md#s4.
 */
export type LimiterEvent =
  | {
      type: "storeFailing";
      /** `"error"`: a round failed (rejected, timed out, malformed); `"stalled"`: a round unanswered longer than cacheTtlMs. */
      cause: "error" | "stalled";
      /** The store error (`"error"` only). */
      error?: unknown;
      /** Local monotonic ms. */
      at: number;
    }
  | {
      type: "storeRecovered";
      /** How long no round had succeeded, ms. */
      outageMs: number;
      at: number;
    }
  | {
      type: "overrun";
      /** A request admitted without a reply from the store, within this replica's share of its last view. */
      subject: string;
      at: number;
    };

/** Receives limiter events; a listener that throws is ignored. */
export type LimiterEventListener = (event: LimiterEvent) => void;

/** Delivers events to the listener, ignoring what it throws (observability must not change decisions). */
export function emitEvent(listener: LimiterEventListener | undefined, event: LimiterEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // a throwing listener is ignored
  }
}
