// The README example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = ["deployment gpt-4o@eastus: closed -> open (threshold)"];

it("the README example runs and prints what the README says", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
  // The README shows 30000: a loaded host may take a millisecond or more between the two calls.
  expect(out).toMatch(/call 6: skipped, deployment breaker open, retry in (30000|29\d{3}) ms/);
}, 40_000);
