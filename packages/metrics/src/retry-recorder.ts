import type { Sample } from "./from-samples.js";

/** What `retry()`'s give-up event carries that the recorder reads. */
export interface GiveUpLike {
  stop: string;
}

/**
 * Counts what `retry()` of `@resil/retry` reports through its hooks: pass `recorder.hooks` as (or merge
 * them into) retry's options, and the recorder to `resilMetrics([...])`.
 */
export class RetryRecorder {
  private retries = 0;
  private readonly giveUps = new Map<string, number>();

  /** The `onRetry` / `onGiveUp` options of `retry()`; they never throw. */
  readonly hooks = {
    onRetry: (): void => {
      this.retries++;
    },
    onGiveUp: (event: GiveUpLike): void => {
      this.giveUps.set(event.stop, (this.giveUps.get(event.stop) ?? 0) + 1);
    },
  };

  metrics(): { at: number; samples: Sample[] } {
    const samples: Sample[] = [{ name: "resil_retry_retries_total", labels: {}, value: this.retries }];
    for (const [stop, value] of this.giveUps)
      samples.push({ name: "resil_retry_give_ups_total", labels: { stop }, value });
    return { at: Date.now(), samples };
  }
}
