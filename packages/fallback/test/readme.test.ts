// The README example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = [
  "served by gpt-4o-mini: hello from gpt-4o-mini",
  "gpt-4o failed exhausted 3",
  "gpt-4o-mini served  1",
];

it("the README example runs and prints what the README says", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);

it("the README's building-blocks example serves from the first candidate", () => {
  expect(runReadmeExample(new URL("..", import.meta.url), "Building blocks")).toBe(
    "{ ok: true, endpoint: 'gpt-4o', value: 'hello from gpt-4o' }\n",
  );
}, 40_000);
