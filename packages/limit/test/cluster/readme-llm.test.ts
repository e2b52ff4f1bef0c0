// The README's "Reserve then settle", "Several budgets in one decision" and "Pacing by the upstream's own headers" examples, run as written.

import { expect, it } from "vitest";
import { runReadmeBlock as run } from "../readme/run-block.js";

it("README: reserve then settle", () => {
  expect(run("Reserve then settle")).toBe("allow\n300\n");
});

it("README: several budgets in one decision", () => {
  expect(run("Several budgets in one decision")).toBe("allow\nallow\ndeny\nallow\n");
});

it("README: pacing by the upstream's own headers", () => {
  expect(run("Pacing by the upstream's own headers")).toBe("100 ms later, admitted\nundefined\n");
});
