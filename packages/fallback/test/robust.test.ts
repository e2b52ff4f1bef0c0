import { describe, expect, it } from "vitest";
import { expand, FallbackConfigError, type Hop, run } from "../src/index.js";

const failed = (error: string): Hop<string, string> => ({ kind: "failed", error });

describe("run with throwing callbacks", () => {
  it("surfaces the hop's error when trigger throws, instead of rejecting", async () => {
    const out = await run(
      ["a", "b"],
      undefined,
      () => failed("503"),
      () => {
        throw new Error("trigger broke");
      },
    );
    expect(out.result).toEqual({ ok: false, error: { kind: "surfaced", endpoint: "a", error: "503" } });
  });

  it("records a throwing attempt as a failed hop", async () => {
    const boom = new Error("attempt broke");
    const out = await run(
      ["a", "b"],
      undefined,
      (e) => {
        if (e === "a") throw boom;
        return { kind: "served", value: "b" };
      },
      () => true,
    );
    expect(out.result).toEqual({ ok: true, endpoint: "b", value: "b" });
    expect(out.hops[0]).toEqual({ endpoint: "a", hop: { kind: "failed", error: boom } });
  });
});

describe("expand with a malformed fallback list", () => {
  it("reads a string value as one candidate, not its letters", () => {
    expect(expand("a", { a: "bcd" } as never, 10)).toEqual(["a", "bcd"]);
  });

  it("names the endpoint whose list holds something other than names", () => {
    expect(() => expand("a", { a: ["b", 7] } as never, 10)).toThrow(FallbackConfigError);
    expect(() => expand("a", { a: { b: 1 } } as never, 10)).toThrow(/fallbacks of "a"/);
  });
});
