/**
 * What an upstream said about its own budget in its response headers, as `@resil/classify`'s
 * `upstreamBudgets` reports it (structurally: this package does not depend on classify).
 */
export interface UpstreamBudgetLike {
  /** Units the upstream still allows (a non-negative safe integer). */
  remaining?: number;
  /** Milliseconds until the upstream's budget is full again (finite, >= 0). */
  resetInMs?: number;
  /** The upstream's full budget; when given, what it allows refills evenly until the reset. */
  limit?: number;
}

/** An `observe` budget field is out of range; `field` names it. */
export class InvalidBudgetError extends RangeError {
  override readonly name = "InvalidBudgetError";
  constructor(
    readonly field: "remaining" | "resetInMs" | "limit",
    value: unknown,
  ) {
    super(
      field === "resetInMs"
        ? `resetInMs must be a finite number >= 0, got ${String(value)}`
        : `${field} must be a non-negative safe integer, got ${String(value)}`,
    );
  }
}

interface Hold {
  /** What the upstream allowed when observed. */
  remaining: number;
  /** Units refilled per ms until `until` (0 without a limit: nothing until the reset). */
  refillPerMs: number;
  /** Clock reading (monotonic ms) of the observation, and of the reset that ends the hold. */
  at: number;
  until: number;
  /** Units this replica admitted since the observation. */
  used: number;
}

const SWEEP_EVERY = 256;

const leftOf = (h: Hold, now: number) => Math.floor(h.remaining + h.refillPerMs * (now - h.at)) - h.used;

function count(field: "remaining" | "limit", v: number | undefined): void {
  if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new InvalidBudgetError(field, v);
}

/**
 * Per-subject budgets an upstream reported (see Pacer.observe): until its reset, this replica admits no
 * more than the upstream said remains (plus its even refill when the full `limit` is known). A hold
 * lapses at its reset; then only the limiter decides again.
 */
export class UpstreamHolds {
  private readonly holds = new Map<string, Hold>();
  private observed = 0;

  /** Takes an upstream's word; returns whether it changed the subject's hold. */
  observe(subject: string, b: UpstreamBudgetLike, now: number): boolean {
    count("remaining", b.remaining);
    count("limit", b.limit);
    if (b.resetInMs !== undefined && !(Number.isFinite(b.resetInMs) && b.resetInMs >= 0))
      throw new InvalidBudgetError("resetInMs", b.resetInMs);
    if (++this.observed % SWEEP_EVERY === 0) this.sweep(now);
    if (b.remaining === undefined || b.resetInMs === undefined || b.resetInMs === 0) return false;
    const live = this.live(subject, now);
    // A report allowing more than the live hold still does answers a call sent earlier: stale.
    if (live !== undefined && b.remaining > leftOf(live, now)) return false;
    const gap = b.limit !== undefined ? Math.max(0, b.limit - b.remaining) : 0;
    this.holds.set(subject, {
      remaining: b.remaining,
      refillPerMs: gap / b.resetInMs,
      at: now,
      until: now + b.resetInMs,
      used: 0,
    });
    return true;
  }

  /** Units the upstream's word still allows now, or undefined when no hold is live. */
  left(subject: string, now: number): number | undefined {
    const h = this.live(subject, now);
    return h === undefined ? undefined : leftOf(h, now);
  }

  /** Milliseconds until `cost` units fit the subject's hold (0: they fit now, or no hold). */
  delayFor(subject: string, cost: number, now: number): number {
    const h = this.live(subject, now);
    if (h === undefined || cost === 0) return 0;
    const short = cost + h.used - h.remaining;
    if (short <= h.refillPerMs * (now - h.at)) return 0;
    const refilledAt = h.refillPerMs > 0 ? h.at + short / h.refillPerMs : h.until;
    return Math.max(1, Math.ceil(Math.min(refilledAt, h.until) - now));
  }

  /** Counts admitted units against the subject's hold. */
  take(subject: string, cost: number, now: number): void {
    const h = this.live(subject, now);
    if (h !== undefined) h.used += cost;
  }

  private live(subject: string, now: number): Hold | undefined {
    const h = this.holds.get(subject);
    if (h === undefined || now < h.until) return h;
    this.holds.delete(subject);
    return undefined;
  }

  private sweep(now: number): void {
    for (const [subject, h] of this.holds) if (now >= h.until) this.holds.delete(subject);
  }
}
