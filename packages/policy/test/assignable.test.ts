// Type-level proof (checked by `tsc --noEmit`, i.e. `npm run typecheck`): what parsePolicy returns
// is what @resil/limit's Limiter.setPolicy and @resil/retry's RetryPolicy profiles take, with no
// run-time import between the packages (type-only imports, erased under verbatimModuleSyntax).
import { readdirSync, readFileSync } from "node:fs";
import type { Limiter } from "@resil/limit";
import type { RetryPolicy } from "@resil/retry";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Policy, RateLimitConfig, RetryConfig } from "../src/index.js";

type SetPolicy = Limiter["setPolicy"];

// Never called: it only has to compile.
export function compileOnly(limiter: Limiter, retryPolicy: typeof RetryPolicy, policy: Policy): void {
  limiter.setPolicy("target", policy.rateLimits, policy.maxConcurrent);
  if (policy.retryConfig) {
    retryPolicy.standard(policy.retryConfig);
    retryPolicy.interactive(policy.retryConfig);
  }
}

describe("parsed types fit the consumers", () => {
  it("rateLimits and maxConcurrent fit Limiter.setPolicy", () => {
    expectTypeOf<RateLimitConfig>().toExtend<NonNullable<Parameters<SetPolicy>[1]>>();
    expectTypeOf<Policy["rateLimits"]>().toExtend<Parameters<SetPolicy>[1]>();
    expectTypeOf<Policy["maxConcurrent"]>().toExtend<Parameters<SetPolicy>[2]>();
  });

  it("retryConfig fits RetryPolicy.standard and .interactive", () => {
    expectTypeOf<RetryConfig>().toExtend<Parameters<typeof RetryPolicy.standard>[0]>();
    expectTypeOf<RetryConfig>().toExtend<Parameters<typeof RetryPolicy.interactive>[0]>();
  });

  it("the sources import no other @resil package", () => {
    const dir = new URL("../src/", import.meta.url);
    for (const name of readdirSync(dir)) {
      expect(readFileSync(new URL(name, dir), "utf8"), name).not.toMatch(/from\s+["']@resil\//);
    }
  });
});
