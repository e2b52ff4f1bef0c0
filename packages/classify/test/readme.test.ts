// The README's example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = ["retryAfterMs: 20000", "vendorConcurrency: true", "{ kind: 'connect' } true"];

it("the README example runs", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);
