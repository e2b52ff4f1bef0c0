// The README examples run as written (from src/, through the `source` condition). The shared-breakers
// example needs a Redis on 6379: store-ioredis's shared-breakers suite covers it against a real server.
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const PACKAGE = new URL("..", import.meta.url);

it("the README example runs and prints what the README says", () => {
  const out = runReadmeExample(PACKAGE);
  expect(out).toContain("deployment gpt-4o@eastus: closed -> open (threshold)");
  // The README shows 30000: a loaded host may take a millisecond or more between the two calls.
  expect(out).toMatch(/call 6: skipped, deployment breaker open, retry in (30000|29\d{3}) ms/);
}, 40_000);

it("the README's error-rate example opens the breaker, as it says", () => {
  expect(runReadmeExample(PACKAGE, "Error-rate mode")).toBe("open\n");
}, 40_000);
