// The README's examples run as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const PACKAGE = new URL("..", import.meta.url);
const EXPECT = ["retryAfterMs: 20000", "vendorConcurrency: true", "{ kind: 'connect' } true"];

it("the README example runs", () => {
  const out = runReadmeExample(PACKAGE);
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);

it("the README's upstreamBudgets example prints what the README says", () => {
  const out = runReadmeExample(PACKAGE, "`upstreamBudgets(headers, nowMs = Date.now()) -> UpstreamBudget[]`");
  expect(out).toBe("openai requests 500 0 90000\npause 90000 ms\nopenai tokens 30000 29000 2\n");
}, 40_000);
