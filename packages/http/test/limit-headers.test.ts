// Type-level: the limiter's decision headers are what this package writes, with no run-time import.
import type { Decision, RateHeaders } from "@resil/limit";
import { describe, expectTypeOf, it } from "vitest";
import type { RateLimitHeaders } from "../src/index.js";

describe("@resil/limit's headers fit @resil/http", () => {
  it("RateHeaders is assignable to RateLimitHeaders and back", () => {
    expectTypeOf<RateHeaders>().toExtend<RateLimitHeaders>();
    expectTypeOf<RateLimitHeaders>().toExtend<RateHeaders>();
  });

  it("an allow or deny decision's headers can be written as they are", () => {
    expectTypeOf<Extract<Decision, { kind: "deny" }>["headers"]>().toExtend<RateLimitHeaders>();
    expectTypeOf<Extract<Decision, { kind: "allow" }>["headers"]>().toExtend<RateLimitHeaders>();
  });
});
