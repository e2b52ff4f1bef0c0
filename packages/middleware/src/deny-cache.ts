import type { DecisionHeaders } from "./limiter-like.js";

/** One remembered denial: until when, for which cost, and the headers it was denied with. */
interface Denial {
  untilMs: number;
  cost: number;
  headers: DecisionHeaders;
  reason: string;
}

/** A denial answered from memory: `Retry-After` counted down to the remembered end. */
export interface CachedDenial {
  readonly kind: "deny";
  readonly headers: DecisionHeaders;
  readonly reason: string;
}

/** Entries above which expired ones are swept (a sweep per this many new entries at most). */
const SWEEP_AT = 4096;

/**
 * Denials remembered until their `Retry-After` (or the head window's reset, if sooner): a key over its limit is answered without calling the
 * limiter again (no store round, whatever the limiter's own pacing) until waiting would leave a free
 * unit. A request of a lower cost than the one denied asks the limiter.
 */
export class DenyCache {
  private readonly denials = new Map<string, Denial>();
  private sweepAt = SWEEP_AT;

  /** The remembered denial of `subject` for `cost`, or undefined (none, expired, or a cheaper request). */
  get(subject: string, cost: number): CachedDenial | undefined {
    const d = this.denials.get(subject);
    if (d === undefined) return undefined;
    const now = Date.now();
    if (now >= d.untilMs) {
      this.denials.delete(subject);
      return undefined;
    }
    if (cost < d.cost) return undefined;
    const retryAfter = Math.max(1, Math.ceil((d.untilMs - now) / 1000));
    const h = d.headers;
    return {
      kind: "deny",
      headers: { limit: h.limit, remaining: 0, reset: h.reset, retryAfter },
      reason: d.reason,
    };
  }

  /** Remembers a denial that has a `Retry-After`. */
  remember(subject: string, cost: number, headers: DecisionHeaders, reason: string): void {
    if (headers.retryAfter === undefined || !(headers.retryAfter > 0)) return;
    const now = Date.now();
    if (this.denials.size >= this.sweepAt) this.sweep(now);
    // Never past the head window's reset: a fixed window frees everything there, whatever Retry-After said.
    const untilMs = Math.min(now + headers.retryAfter * 1000, headers.reset * 1000);
    if (untilMs <= now) return;
    this.denials.set(subject, {
      untilMs,
      cost,
      headers,
      reason,
    });
  }

  /** Remembered denials (expired ones included until swept). */
  get size(): number {
    return this.denials.size;
  }

  private sweep(now: number): void {
    for (const [subject, d] of this.denials) if (now >= d.untilMs) this.denials.delete(subject);
    this.sweepAt = Math.max(SWEEP_AT, this.denials.size * 2);
  }
}
