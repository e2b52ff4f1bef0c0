import { describe, expect, it } from "vitest";
import { ChainOutcome } from "../src/index.js";

describe("ChainOutcome.fellBack", () => {
  const failed = { kind: "failed", error: "x" } as const;

  it("is true only when served by an endpoint other than the first hop's", () => {
    const served = { kind: "served", value: 1 } as const;
    expect(
      new ChainOutcome({ ok: true, endpoint: "b", value: 1 }, [{ endpoint: "a", hop: failed }]).fellBack(),
    ).toBe(true);
    expect(
      new ChainOutcome({ ok: true, endpoint: "a", value: 1 }, [{ endpoint: "a", hop: served }]).fellBack(),
    ).toBe(false);
  });

  it("is false for a failed chain", () => {
    const out = new ChainOutcome({ ok: false, error: { kind: "exhausted" } }, [
      { endpoint: "a", hop: failed },
    ]);
    expect(out.fellBack()).toBe(false);
  });
});
