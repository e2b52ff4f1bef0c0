// The README's example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = [
  "/ok 200 59 null hello",
  '/limited 429 0 12 {"error":{"message":"Rate limit exceeded"',
  "/busy 429 null 1 ",
  '429 "default";r=0;t=1',
];

it("the README example runs", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);
