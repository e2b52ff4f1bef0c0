// The README's example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = [
  "20 { numRetries: 2, maxDelayS: 5 } [ 'model-b', 'model-c' ]",
  "true { limit: 5000, windowMs: 3600000 }",
  "{ limit: 10, windowMs: 1000, burst: 15 }\n{ limit: 5000, windowMs: 3600000, burst: 15 }",
  "invalid type: 7, expected a string",
];

it("the README example runs", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);
