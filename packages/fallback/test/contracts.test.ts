import type { BreakerVerdict } from "@resil/breaker";
import type { Verdict } from "@resil/classify";
import { describe, expectTypeOf, it } from "vitest";
import type { GuardedAttemptOptions } from "../src/index.js";

describe("contracts between packages", () => {
  it("a classify Verdict is what TwoTier.recordFailure takes", () => {
    expectTypeOf<Verdict>().toExtend<BreakerVerdict>();
  });

  it("the helper's classify returns a classify Verdict", () => {
    expectTypeOf<GuardedAttemptOptions<string>["classify"]>().toEqualTypeOf<
      ((error: unknown) => Verdict) | undefined
    >();
  });
});
