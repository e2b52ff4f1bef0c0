import { RateLimiterMemory } from "rate-limiter-flexible";
import { HUGE_LIMIT } from "../keys.js";

/** rate-limiter-flexible in memory with the resil policy's three windows: one limiter per window, consumed in turn. */
export class RlfWindows {
  private readonly s = new RateLimiterMemory({ keyPrefix: "s", points: HUGE_LIMIT, duration: 1 });
  private readonly m = new RateLimiterMemory({ keyPrefix: "m", points: HUGE_LIMIT, duration: 60 });
  private readonly h = new RateLimiterMemory({ keyPrefix: "h", points: HUGE_LIMIT, duration: 3600 });

  /** Resolves when all three windows admitted; rejects (the library's way to refuse) otherwise. */
  async consume(key: string): Promise<void> {
    await this.s.consume(key);
    await this.m.consume(key);
    await this.h.consume(key);
  }
}

/** The single-window form (one consume per request), the cheapest way to use the library. */
export function rlfOneWindow(): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: "s1", points: HUGE_LIMIT, duration: 1 });
}
