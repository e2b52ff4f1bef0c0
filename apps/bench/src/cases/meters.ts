import {
  MultiRateLimiter,
  RateLimiter,
  RateLimiterPolicy,
  WindowedRateLimiter,
  WindowPolicy,
} from "@resil/limit";
import { RateLimiter as PeerRateLimiter, TokenBucket } from "limiter";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { measure, measureOptions, type Variant } from "../harness.js";
import type { BenchCase } from "../types.js";

const HOUR_MS = 3_600_000;
// A bucket that cannot run dry during a run: a billion tokens refilled every second.
const FULL = 1_000_000_000;

function resilFull(): Variant {
  const bucket = new RateLimiter(RateLimiterPolicy.perSecond(FULL));
  return {
    id: "resil-full",
    label: "resil RateLimiter.tryAcquire, full bucket",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (bucket.tryAcquire() !== null) ok++;
      return ok;
    },
  };
}

function resilEmpty(): Variant {
  const bucket = new RateLimiter(new RateLimiterPolicy(1, HOUR_MS));
  bucket.tryAcquire(); // drained: every later call is a refusal
  return {
    id: "resil-empty",
    label: "resil RateLimiter.tryAcquire, empty bucket",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (bucket.tryAcquire() === null) ok++;
      return ok;
    },
  };
}

function resilWindowed(): Variant {
  const window = new WindowedRateLimiter(new WindowPolicy(FULL, 1000));
  return {
    id: "resil-windowed",
    label: "resil WindowedRateLimiter.tryAcquire, room left",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (window.tryAcquire() !== null) ok++;
      return ok;
    },
  };
}

function resilMulti(): Variant {
  const multi = new MultiRateLimiter()
    .withTier("second", new RateLimiter(RateLimiterPolicy.perSecond(FULL)), 1)
    .withTier("hour", new WindowedRateLimiter(WindowPolicy.perHours(FULL, 1)), 1)
    .withTier("week", new WindowedRateLimiter(WindowPolicy.perDays(FULL, 7)), 1);
  return {
    id: "resil-multi",
    label: "resil MultiRateLimiter.tryAcquire, 3 tiers with room",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (multi.tryAcquire().ok) ok++;
      return ok;
    },
  };
}

function limiterFull(): Variant {
  const bucket = new PeerRateLimiter({ tokensPerInterval: FULL, interval: "second" });
  return {
    id: "limiter-full",
    label: "limiter RateLimiter.tryRemoveTokens(1), full",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (bucket.tryRemoveTokens(1)) ok++;
      return ok;
    },
  };
}

function limiterEmpty(): Variant {
  const bucket = new PeerRateLimiter({ tokensPerInterval: 1, interval: "hour" });
  bucket.tryRemoveTokens(1);
  return {
    id: "limiter-empty",
    label: "limiter RateLimiter.tryRemoveTokens(1), empty",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (!bucket.tryRemoveTokens(1)) ok++;
      return ok;
    },
  };
}

function tokenBucketFull(): Variant {
  const bucket = new TokenBucket({ bucketSize: FULL, tokensPerInterval: FULL, interval: "second" });
  return {
    id: "limiter-tokenbucket-full",
    label: "limiter TokenBucket.tryRemoveTokens(1), full",
    chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) if (bucket.tryRemoveTokens(1)) ok++;
      return ok;
    },
  };
}

function rlfFull(): Variant {
  const meter = new RateLimiterMemory({ points: FULL, duration: 1 });
  return {
    id: "rlf-full",
    label: "rate-limiter-flexible RateLimiterMemory.consume, room left",
    async chunk(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        await meter.consume("k");
        ok++;
      }
      return ok;
    },
  };
}

function rlfEmpty(): Variant {
  const meter = new RateLimiterMemory({ points: 1, duration: HOUR_MS / 1000 });
  return {
    id: "rlf-empty",
    label: "rate-limiter-flexible RateLimiterMemory.consume, exhausted (rejects)",
    async chunk(n) {
      let refused = 0;
      for (let i = 0; i < n; i++) {
        try {
          await meter.consume("k");
        } catch {
          refused++; // the peer's refusal is a rejected promise
        }
      }
      return refused;
    },
  };
}

export const meters: BenchCase = {
  name: "meters",
  title: "In-process meters",
  description:
    "One bucket, one caller, synchronous where the library allows: resil's local limiters vs limiter and RateLimiterMemory",
  async run(opts) {
    return measure(
      [
        resilFull(),
        resilEmpty(),
        resilWindowed(),
        resilMulti(),
        limiterFull(),
        limiterEmpty(),
        tokenBucketFull(),
        rlfFull(),
        rlfEmpty(),
      ],
      measureOptions(opts),
    );
  },
};
