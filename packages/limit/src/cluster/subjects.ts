import { ConcurrencyKeyState } from "./concurrency-key.js";
import {
  concurrencyCap,
  keyTuning,
  type RateLimitConfig,
  type RatePolicy,
  ratePolicy,
  samePolicy,
  sameTuning,
} from "./config.js";
import { InvalidPolicyError } from "./errors.js";
import { type Family, FamilyTable } from "./families.js";
import { concurrencyStoreKey, configHash, rateKeyPrefix, rateStoreKeyAt } from "./keys.js";
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
  /** The family this policy comes from; undefined: set for this subject (setPolicy). */
  family?: Family;
  /** Precomputed store-key hash of `policy` (a family's). */
  hash?: string;
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
  readonly families = new FamilyTable();
  /** Called with the first state of a family subject, fresh (its rate key, or its cap without one). */
  onFamilyState: ((state: RateKeyState | ConcurrencyKeyState) => void) | undefined;

  // `rl2:{<service>:`, computed once (the service tag is the same for every key)
  private readonly ratePrefix: string;

  constructor(
    private readonly service: string,
    private readonly hasStore: boolean,
  ) {
    this.ratePrefix = rateKeyPrefix(service);
  }

  // Equal setPolicy policies share one object (and what rate-key.ts derives from it) and its hash.
  private readonly shared = new Map<string, { policy: RatePolicy; hash: string }>();

  private sharedPolicy(policy: RatePolicy): { policy: RatePolicy; hash: string } {
    let id = `${policy.alg}|${policy.cacheTtlMs}|${policy.redisTimeoutMs}|${policy.localAllowance}|${policy.syncIntervalMs}`;
    for (const w of policy.windows) id += `|${w.limit},${w.windowMs},${w.burst}`;
    let e = this.shared.get(id);
    if (e === undefined) {
      if (this.shared.size >= SHARED_POLICIES) this.shared.clear();
      e = { policy, hash: configHash(policy.alg, policy.windows) };
      this.shared.set(id, e);
    }
    return e;
  }

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
      k.retired = true;
    }
    const c = this.caps.get(subject);
    if (c !== undefined) {
      this.caps.delete(subject);
      c.retired = true;
    }
  }

  /**
   * Applies every entry and removes the explicit subjects not listed (family subjects stay);
   * validates all entries before changing any.
   */
  replaceAll(list: Iterable<PolicyEntry>): void {
    const parsed = [...list].map((e) => {
      checkSubject(e.subject);
      return parsePolicy(e.subject, e.rateLimits, e.maxConcurrent);
    });
    const listed = new Set(parsed.map((p) => p.subject));
    for (const p of parsed) this.apply(p);
    for (const subject of this.subjects()) {
      if (!listed.has(subject) && this.familyOf(subject) === undefined) this.remove(subject);
    }
  }

  /** The family a subject's state came from (undefined: explicit, or unknown). */
  familyOf(subject: string): Family | undefined {
    return this.rates.get(subject)?.family ?? this.caps.get(subject)?.family;
  }

  /**
   * A subject without state: creates it from its family, if one matches (see docs/protocol.md#s1-7).
   * Returns the rate key (undefined when the family has no rate part, or no family matches).
   */
  adopt(subject: string): RateKeyState | undefined {
    if (this.families.size === 0) return undefined;
    const known = this.rates.get(subject);
    if (known !== undefined || this.caps.has(subject)) return known;
    const family = this.families.match(subject);
    if (family === undefined || family.empty) return undefined;
    if (family.max === 0) {
      // rate only and nothing to replace: the key alone (apply's general path, without its lookups)
      const policy = family.policy!;
      const localOnly = policy.localAllowance >= 1 || !this.hasStore;
      // the store key is built when first needed: a local-only key may never need it
      const k = new RateKeyState(subject, family, policy, localOnly);
      this.rates.set(subject, k);
      this.onFamilyState?.(k);
      return withSpare(k, family);
    }
    this.apply({
      subject,
      policy: family.policy,
      max: family.max,
      config: family.config,
      family,
      hash: family.rateHash,
    });
    const k = this.rates.get(subject);
    return k === undefined ? undefined : withSpare(k, family);
  }

  /** Sets a family; its subjects (and those a shorter prefix held) move to it as setPolicy would move them. */
  setFamily(family: Family): void {
    const old = this.families.get(family.prefix);
    if (old !== undefined && sameFamily(old, family)) return;
    family.keyPrefix = this.ratePrefix;
    this.families.set(family);
    this.rehome((f, subject) => f === old || (f !== undefined && subject.startsWith(family.prefix)));
  }

  /** Removes a family; its subjects move to the next longest prefix, or are forgotten. */
  removeFamily(prefix: string): void {
    const old = this.families.delete(prefix);
    if (old !== undefined) this.rehome((f) => f === old);
  }

  // Re-applies the family subjects `moved` selects with the family that matches them now.
  private rehome(moved: (family: Family | undefined, subject: string) => boolean): void {
    for (const subject of this.subjects()) {
      const current = this.familyOf(subject);
      if (current === undefined || !moved(current, subject)) continue;
      const f = this.families.match(subject);
      if (f === undefined || f.empty) this.remove(subject);
      else
        this.apply({ subject, policy: f.policy, max: f.max, config: f.config, family: f, hash: f.rateHash });
    }
  }

  apply({ subject, policy, max, config, family, hash }: ParsedPolicy): void {
    if (policy !== undefined && family === undefined) ({ policy, hash } = this.sharedPolicy(policy));
    const before = this.rates.get(subject) ?? this.caps.get(subject);
    const oldRate = this.rates.get(subject);
    if (policy === undefined) {
      if (oldRate !== undefined) oldRate.retired = true;
      this.rates.delete(subject);
    } else {
      const localOnly = policy.localAllowance >= 1 || !this.hasStore;
      const key = rateStoreKeyAt(this.ratePrefix, subject, hash ?? configHash(policy.alg, policy.windows));
      // a tuning-only change keeps the live state (credit, counts, syncs) under the new tuning
      if (oldRate !== undefined && oldRate.storeKey === key && oldRate.localOnly === localOnly) {
        oldRate.policy = policy;
        oldRate.family = family;
      } else {
        if (oldRate !== undefined) oldRate.retired = true;
        const k = new RateKeyState(subject, family ?? key, policy, localOnly);
        this.rates.set(subject, k);
      }
    }
    const oldCap = this.caps.get(subject);
    if (max === 0) {
      if (oldCap !== undefined) oldCap.retired = true;
      this.caps.delete(subject);
    } else {
      const tuning = family?.capTuning ?? keyTuning(config);
      const localOnly = tuning.localAllowance >= 1 || !this.hasStore;
      // the same local-only status keeps the slots held: a new tuning or cap applies in place
      if (oldCap !== undefined && oldCap.localOnly === localOnly) {
        oldCap.tuning = tuning;
        if (oldCap.max !== max) oldCap.recap(max);
        oldCap.family = family;
      } else {
        if (oldCap !== undefined) oldCap.retired = true;
        const key = concurrencyStoreKey(this.service, subject);
        const c = new ConcurrencyKeyState(subject, key, max, tuning, localOnly);
        c.family = family;
        this.caps.set(subject, c);
      }
    }
    const after = this.rates.get(subject) ?? this.caps.get(subject);
    if (family !== undefined && after !== undefined && after !== before) this.onFamilyState?.(after);
  }
}

/** A new synced family key syncs on its first request: it takes a forgotten subject's part, if one is kept. */
function withSpare(k: RateKeyState, family: Family): RateKeyState {
  if (!k.localOnly) {
    const part = family.spares.take();
    if (part !== undefined) k.reuse(part);
  }
  return k;
}

/** Distinct setPolicy policies remembered for sharing; past this many the memo starts afresh. */
const SHARED_POLICIES = 1024;

/** Same limits and tuning: setting the family again keeps its subjects' live state. */
function sameFamily(a: Family, b: Family): boolean {
  const rate =
    a.policy === undefined
      ? b.policy === undefined
      : b.policy !== undefined && samePolicy(a.policy, b.policy);
  return rate && a.max === b.max && (a.max === 0 || sameTuning(a.capTuning, b.capTuning));
}
