// TEMPORARY test shim, delete at merge: gives a Limiter a `setFamily` (until @resil/limit has its own)
// by calling setPolicy for each family subject on first sight.
import type { Limiter, RateLimitConfig } from "@resil/limit";

type Family = [
  prefix: string,
  rateLimits: RateLimitConfig | null | undefined,
  maxConcurrent: number | null | undefined,
];

export type FamilyLimiter = Limiter & {
  setFamily(prefix: string, rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null): void;
};

/** The limiter itself when it has `setFamily`; otherwise patched with a first-sight shim. */
export function withFamilies(limiter: Limiter): FamilyLimiter {
  const target = limiter as FamilyLimiter;
  return typeof target.setFamily === "function" ? target : shimFamilies(limiter);
}

/** Patches `limiter` (its own properties) with a first-sight `setFamily`. */
export function shimFamilies(limiter: Limiter): FamilyLimiter {
  const families: Family[] = [];
  const ensure = (subject: string) => {
    if (limiter.hasPolicy(subject)) return;
    const family = families.find(([prefix]) => subject.startsWith(prefix));
    if (family !== undefined) limiter.setPolicy(subject, family[1], family[2]);
  };
  const tryCheck = limiter.tryCheck.bind(limiter);
  const check = limiter.check.bind(limiter);
  const tryAdmit = limiter.tryAdmit.bind(limiter);
  const acquire = limiter.acquire.bind(limiter);
  return Object.assign(limiter, {
    setFamily(prefix: string, rateLimits?: RateLimitConfig | null, maxConcurrent?: number | null) {
      families.push([prefix, rateLimits, maxConcurrent]);
    },
    tryCheck(subject: string, cost?: number) {
      ensure(subject);
      return tryCheck(subject, cost);
    },
    check(subject: string, cost?: number) {
      ensure(subject);
      return check(subject, cost);
    },
    tryAdmit(subject: string, cost?: number) {
      ensure(subject);
      return tryAdmit(subject, cost);
    },
    acquire(subject: string) {
      ensure(subject);
      return acquire(subject);
    },
  });
}
