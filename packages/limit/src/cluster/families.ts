import {
  concurrencyCap,
  type KeyTuning,
  keyTuning,
  type RateLimitConfig,
  type RatePolicy,
  ratePolicy,
} from "./config.js";
import { InvalidPolicyError } from "./errors.js";
import { configHash, rateStoreKeyAt } from "./keys.js";
import { SpareParts } from "./spare-parts.js";

/**
 * A policy family (see docs/protocol.md#s1-7): one policy every subject starting with `prefix` gets on
 * first use, with no per-subject call. Its subjects are evicted when idle.
 */
export class Family {
  /** The store-key hash of the rate part, computed once for every subject of the family. */
  readonly rateHash: string;
  readonly capTuning: KeyTuning;
  /** Idle time of its subjects, once computed for a lease time (idle-sweep.ts). */
  idleMs: number | undefined;
  idleLease: number | undefined;
  /** `rl2:{<service>:` of the limiter it is set on (subjects.ts). */
  keyPrefix = "";
  /** Sync parts of its forgotten subjects, for its new ones (idle-sweep.ts, subjects.ts). */
  readonly spares = new SpareParts();

  constructor(
    readonly prefix: string,
    readonly policy: RatePolicy | undefined,
    readonly max: number,
    readonly config: RateLimitConfig | null | undefined,
  ) {
    this.rateHash = policy === undefined ? "" : configHash(policy.alg, policy.windows);
    this.capTuning = keyTuning(config);
  }

  /** A subject's rate store key (built, not kept: a local-only key rarely needs it). */
  rateStoreKey(subject: string): string {
    return rateStoreKeyAt(this.keyPrefix, subject, this.rateHash);
  }

  /** The family limits nothing: its subjects are unlimited (it still shadows shorter prefixes). */
  get empty(): boolean {
    return this.policy === undefined && this.max === 0;
  }
}

/** Validates a family; throws InvalidPolicyError naming the bad field. */
export function parseFamily(
  prefix: string,
  rateLimits: RateLimitConfig | null | undefined,
  maxConcurrent: number | null | undefined,
): Family {
  if (typeof prefix !== "string" || prefix.length === 0) {
    throw new InvalidPolicyError("prefix", "must be a non-empty string");
  }
  return new Family(prefix, ratePolicy(rateLimits), concurrencyCap(maxConcurrent), rateLimits);
}

/** The families of one limiter, by prefix; few, so a lookup is a loop over them. */
export class FamilyTable {
  private readonly byPrefix = new Map<string, Family>();
  private list: Family[] = [];

  get size(): number {
    return this.list.length;
  }

  get(prefix: string): Family | undefined {
    return this.byPrefix.get(prefix);
  }

  set(family: Family): void {
    this.byPrefix.set(family.prefix, family);
    this.rebuild();
  }

  delete(prefix: string): Family | undefined {
    const old = this.byPrefix.get(prefix);
    if (old !== undefined) {
      this.byPrefix.delete(prefix);
      this.rebuild();
    }
    return old;
  }

  /** Every family, longest prefix first. */
  all(): readonly Family[] {
    return this.list;
  }

  /** The family of `subject`: the longest prefix it starts with. */
  match(subject: string): Family | undefined {
    // `list` is sorted longest prefix first, so the first hit wins.
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const f = list[i]!;
      if (subject.startsWith(f.prefix)) return f;
    }
    return undefined;
  }

  private rebuild(): void {
    this.list = [...this.byPrefix.values()].sort((a, b) => b.prefix.length - a.prefix.length);
  }
}
