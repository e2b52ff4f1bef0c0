import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../src/readme-example.js";

const PACKAGE = new URL("./fixtures/readme-package/", import.meta.url);

describe("runReadmeExample", () => {
  it("runs the first ```ts block under a ## heading, past other languages", () => {
    expect(runReadmeExample(PACKAGE)).toBe("the h2 example\n");
  });

  it("runs the first ```ts block under a ### heading", () => {
    expect(runReadmeExample(PACKAGE, "Sub example")).toBe("the h3 example\n");
  });

  it("throws for a heading it does not read, or that does not exist", () => {
    expect(() => runReadmeExample(PACKAGE, "Too deep")).toThrow(/no ```ts block under "## Too deep"/);
    expect(() => runReadmeExample(PACKAGE, "Missing")).toThrow(/no ```ts block/);
  });
});
