// The README's examples run as written (from src/, through the `source` condition).

import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const PACKAGE = new URL("..", import.meta.url);
const OPENAI_429 =
  '{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":"rate_limit_exceeded"}}';

it.each([
  [
    "Example",
    [
      '200 2 "hour";q=3;w=3600 hello',
      '200 1 "hour";q=3;w=3600 hello',
      '200 0 "hour";q=3;w=3600 hello',
      `429 0 "hour";q=3;w=3600 ${OPENAI_429}`,
    ],
  ],
  [
    "Express",
    [
      '200 application/json; charset=utf-8 {"ok":true}',
      '429 application/problem+json {"type":"about:blank","title":"Too Many Requests","status":429,"detail":"Rate limit exceeded"}',
      "true true",
    ],
  ],
  ["Fastify", ["/a 200 1 null", "/b 200 0 null", "/c 429 0 "]],
  ["Hono", ['200 "hour";q=1;w=3600 null', '429 "hour";q=1;w=3600 null']],
  ["Fetch", ["2001:db8:1:2::1 200", "2001:db8:1:2::99 429", "192.0.2.1 200"]],
])(
  "the README's %s example runs",
  (heading, lines) => {
    const out = runReadmeExample(PACKAGE, heading);
    for (const line of lines) expect(out).toContain(line);
  },
  40_000,
);
