import { addressKey } from "./client-ip.js";
import { DenyCache } from "./deny-cache.js";
import { MissingKeyError } from "./errors.js";
import { type HeaderMode, IetfPolicy } from "./headers.js";
import type { DecisionHeaders, HeldSlot, LimiterDecision, LimiterLike } from "./limiter-like.js";
import { type RateLimitOptions, validateOptions } from "./options.js";
import { type RejectionSet, rejectionSet } from "./rejections.js";

/**
 * What the middleware does with one request: let it through (`skip`, `unlimited`, `allow`, the last
 * two with the slot to release when it ends), or answer it (`deny`: 429 rate, `busy`: 429
 * concurrency, `failed`: 503 when the limiter threw and `onLimiterError` is "deny").
 */
export type Verdict =
  | { readonly kind: "skip" }
  | { readonly kind: "unlimited"; readonly slot?: HeldSlot }
  | { readonly kind: "allow"; readonly headers: DecisionHeaders; readonly slot?: HeldSlot }
  | { readonly kind: "deny"; readonly headers: DecisionHeaders; readonly reason: string }
  | { readonly kind: "busy"; readonly retryAfter: number }
  | { readonly kind: "failed"; readonly error: unknown };

const SKIP: Verdict = Object.freeze({ kind: "skip" });
const FAIL_OPEN: Verdict = Object.freeze({ kind: "unlimited" });

/** The client address of a request for the default key (an adapter's, honouring `trustProxy`). */
export type AddressOf<Req> = (req: Req, hint: string | undefined) => string | undefined;

/**
 * The framework-free decision engine every middleware runs: skip and allow lists, the key, the cost,
 * `tryCheck` first (no I/O) and `check` only when undecided, then a concurrency slot. Synchronous
 * whenever the limiter decides from credit or a denial is local.
 */
export class RateLimitGate<Req> {
  readonly family: string;
  readonly headerMode: HeaderMode;
  readonly rejections: RejectionSet;
  readonly ietf: IetfPolicy;
  private readonly limiter: LimiterLike;
  private readonly holdSlots: boolean;
  private readonly keyOf: (req: Req, hint: string | undefined) => string;
  private readonly costOf: ((req: Req) => number) | undefined;
  private readonly skipIf: ((req: Req) => boolean) | undefined;
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly failOpen: boolean;
  private readonly onError: ((error: unknown, subject: string | undefined) => void) | undefined;
  /** Denials remembered until their Retry-After (`rememberDenials`), or undefined. */
  readonly denials: DenyCache | undefined;

  constructor(options: RateLimitOptions<Req>, addressOf: AddressOf<Req>) {
    validateOptions(options);
    this.limiter = options.limiter;
    this.family = options.family;
    this.headerMode = options.headers ?? "x-ratelimit";
    this.rejections = rejectionSet(options.body ?? "openai");
    this.ietf = new IetfPolicy(options.rateLimits);
    this.holdSlots = options.slots ?? (options.maxConcurrent ?? 0) > 0;
    this.costOf = options.cost;
    this.skipIf = options.skip;
    this.failOpen = (options.onLimiterError ?? "allow") === "allow";
    this.onError = options.onError;
    this.denials = options.rememberDenials === false ? undefined : new DenyCache();
    const subnet = options.ipv6Subnet ?? 64;
    const custom = options.key;
    if (custom !== undefined) {
      this.keyOf = (req) => custom(req);
    } else {
      this.keyOf = (req, hint) => {
        const address = addressOf(req, hint);
        if (address === undefined) throw new MissingKeyError();
        return addressKey(address, subnet);
      };
    }
    if (options.allowList !== undefined) {
      const list = [...options.allowList];
      this.allowed = new Set(custom === undefined ? list.map((a) => addressKey(a, subnet)) : list);
    }
    if (options.rateLimits != null || options.maxConcurrent != null) {
      options.limiter.setFamily?.(this.family, options.rateLimits, options.maxConcurrent);
    }
  }

  /**
   * The verdict for a request; `hint` is the client address where the request object has none (a
   * Fetch `Request`). Throws what the key, cost or skip function throws (MissingKeyError without an
   * address); limiter errors become a verdict by `onLimiterError`.
   */
  decide(req: Req, hint?: string): Verdict | Promise<Verdict> {
    if (this.skipIf?.(req) === true) return SKIP;
    const key = this.keyOf(req, hint);
    if (this.allowed?.has(key) === true) return SKIP;
    const subject = this.family + key;
    const cost = this.costOf === undefined ? 1 : this.costOf(req);
    const remembered = this.denials?.get(subject, cost);
    if (remembered !== undefined) return remembered;
    let decision: LimiterDecision | undefined;
    try {
      decision = this.limiter.tryCheck(subject, cost);
    } catch (error) {
      return this.failed(error, subject);
    }
    if (decision === undefined) return this.decideLater(subject, cost);
    if (decision.kind === "deny") {
      this.denials?.remember(subject, cost, decision.headers, decision.reason);
      return decision;
    }
    return this.holdSlots ? this.withSlot(subject, decision) : decision;
  }

  private async decideLater(subject: string, cost: number): Promise<Verdict> {
    let decision: LimiterDecision;
    try {
      decision = await this.limiter.check(subject, cost);
    } catch (error) {
      return this.failed(error, subject);
    }
    if (decision.kind === "deny") {
      this.denials?.remember(subject, cost, decision.headers, decision.reason);
      return decision;
    }
    return this.holdSlots ? this.withSlot(subject, decision) : decision;
  }

  private async withSlot(subject: string, decision: LimiterDecision): Promise<Verdict> {
    let result: Awaited<ReturnType<LimiterLike["acquire"]>>;
    try {
      result = await this.limiter.acquire(subject);
    } catch (error) {
      return this.failed(error, subject);
    }
    if (result.kind === "denied") return { kind: "busy", retryAfter: result.retryAfter };
    if (result.kind === "unlimited") return decision;
    return decision.kind === "allow"
      ? { kind: "allow", headers: decision.headers, slot: result.slot }
      : { kind: "unlimited", slot: result.slot };
  }

  private failed(error: unknown, subject: string): Verdict {
    this.report(error, subject);
    return this.failOpen ? FAIL_OPEN : { kind: "failed", error };
  }

  /** Calls `onError`, ignoring what it throws. */
  report(error: unknown, subject: string | undefined): void {
    try {
      this.onError?.(error, subject);
    } catch {
      // a throwing hook must not change the response
    }
  }
}

/** True when `v` is a promise (the slow path). */
export function isPending(v: Verdict | Promise<Verdict>): v is Promise<Verdict> {
  return typeof (v as Promise<Verdict>).then === "function";
}
