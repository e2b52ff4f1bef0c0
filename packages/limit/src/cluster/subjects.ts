import { ConcurrencyKeyState } from "./concurrency-key.js";
import { concurrencyCap, keyTuning, type RateLimitConfig, type RatePolicy, ratePolicy } from "./config.js";
import { InvalidPolicyError } from "./errors.js";
import { concurrencyStoreKey, configHash, rateStoreKey } from "./keys.js";
import { RateKeyState } from "./rate-key.js";

/** One policy of `syncPolicies`. */
export interface PolicyEntry {
  subject: string;
  rateLimits?: RateLimitConfig | null;
  maxConcurrent?: number | null;
}

/** A policy entry validated: its rate policy (undefined: none) and concurrency cap (0: none). */
interface ParsedPolicy {
  subject: string;
  policy: RatePolicy | undefined;
  max: number;
  config: RateLimitConfig | null | undefined;
}

export function checkSubject(subject: string): void {
  if (typeof subject !== "string" || subject.length === 0) {
    throw new InvalidPolicyError("subject", "must be a non-empty string");
  }
}

/** Validates one policy; throws InvalidPolicyError naming the bad field. */
export function parsePolicy(
  subject: string,
  rateLimits: RateLimitConfig | null | undefined,
  maxConcurrent: number | null | undefined,
): ParsedPolicy {
  const policy = ratePolicy(rateLimits);
  const max = concurrencyCap(maxConcurrent);
  checkSubject(subject);
  return { subject, policy, max, config: rateLimits };
}

/**
 * The subjects of one limiter and their key state (see docs/protocol.md#s1-4). A policy set again
 * unchanged keeps its key's live state; a changed one starts a new key.
 */
export class SubjectTable {
  readonly rates = new Map<string, RateKeyState>();
  readonly caps = new Map<string, ConcurrencyKeyState>();

  constructor(
    private readonly service: string,
    private readonly hasStore: boolean,
  ) {}

  /** Number of subjects with a policy. */
  get size(): number {
    let n = this.rates.size;
    for (const subject of this.caps.keys()) if (!this.rates.has(subject)) n++;
    return n;
  }

  has(subject: string): boolean {
    return this.rates.has(subject) || this.caps.has(subject);
  }

  /** Every subject with a policy. */
  subjects(): string[] {
    return [...new Set([...this.rates.keys(), ...this.caps.keys()])];
  }

  /** Forgets a subject (its store leases expire on their own). */
  remove(subject: string): void {
    const k = this.rates.get(subject);
    if (k !== undefined) {
      this.rates.delete(subject);
      k.validUntil = Number.NEGATIVE_INFINITY;
    }
    this.caps.delete(subject);
  }

  /** Applies every entry and removes the subjects not listed; validates all entries before changing any. */
  replaceAll(list: Iterable<PolicyEntry>): void {
    const parsed = [...list].map((e) => {
      checkSubject(e.subject);
      return parsePolicy(e.subject, e.rateLimits, e.maxConcurrent);
    });
    const listed = new Set(parsed.map((p) => p.subject));
    for (const p of parsed) this.apply(p);
    for (const subject of this.subjects()) if (!listed.has(subject)) this.remove(subject);
  }

  apply({ subject, policy, max, config }: ParsedPolicy): void {
    if (policy === undefined) this.rates.delete(subject);
    else {
      const localOnly = policy.localAllowance >= 1 || !this.hasStore;
      const key = rateStoreKey(this.service, subject, configHash(policy.alg, policy.windows));
      const old = this.rates.get(subject);
      // a tuning-only change keeps the live state (credit, counts, syncs) under the new tuning
      if (old !== undefined && old.storeKey === key && old.localOnly === localOnly) old.policy = policy;
      else this.rates.set(subject, new RateKeyState(subject, key, policy, localOnly));
    }
    if (max === 0) this.caps.delete(subject);
    else {
      const tuning = keyTuning(config);
      const localOnly = tuning.localAllowance >= 1 || !this.hasStore;
      const old = this.caps.get(subject);
      // the same local-only status keeps the slots held: a new tuning or cap applies in place
      if (old !== undefined && old.localOnly === localOnly) {
        old.tuning = tuning;
        if (old.max !== max) old.recap(max);
      } else {
        const key = concurrencyStoreKey(this.service, subject);
        this.caps.set(subject, new ConcurrencyKeyState(subject, key, max, tuning, localOnly));
      }
    }
  }
}
