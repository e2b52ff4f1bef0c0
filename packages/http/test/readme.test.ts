// The README's examples run as written (from src/, through the `source` condition).
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

it("the README's IETF example prints the fields the README shows", () => {
  expect(runReadmeExample(new URL("..", import.meta.url), "IETF fields")).toBe(
    'RateLimit: "second";r=4;t=1, "hour";r=999;t=1800\nRateLimit-Policy: "second";q=10;w=1, "hour";q=1000;w=3600\n',
  );
}, 40_000);
