import { RateLimiter } from "limiter";
import { HUGE_LIMIT } from "../keys.js";

/** `limiter` as a per-replica limiter with the same three windows as the resil policy (second, minute, hour). */
export class LimiterWindows {
  private readonly s = new RateLimiter({ tokensPerInterval: HUGE_LIMIT, interval: "second" });
  private readonly m = new RateLimiter({ tokensPerInterval: HUGE_LIMIT, interval: "minute" });
  private readonly h = new RateLimiter({ tokensPerInterval: HUGE_LIMIT, interval: "hour" });

  tryRemove(): boolean {
    return this.s.tryRemoveTokens(1) && this.m.tryRemoveTokens(1) && this.h.tryRemoveTokens(1);
  }
}

/** One LimiterWindows per key, looked up per decision as a gateway would. */
export function limiterPerKey(keys: readonly string[]): Map<string, LimiterWindows> {
  const map = new Map<string, LimiterWindows>();
  for (const k of keys) map.set(k, new LimiterWindows());
  return map;
}
