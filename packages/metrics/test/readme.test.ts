// The README example runs as written (from src/, through the `source` condition).
import { runReadmeExample } from "@resil/testkit";
import { expect, it } from "vitest";

const EXPECT = [
  'resil_limiter_decisions_total{resil_service="gateway",resil_outcome="allow",resil_mode="cold"} 1',
  'resil_limiter_slot_decisions_total{resil_service="gateway",resil_outcome="allow",resil_mode="sync"} 1',
  "true true",
];

it("the README example runs and prints what the README says", () => {
  const out = runReadmeExample(new URL("..", import.meta.url));
  for (const line of EXPECT) expect(out).toContain(line);
}, 40_000);

it("the README's OpenTelemetry example runs (a no-op meter without an SDK)", () => {
  expect(runReadmeExample(new URL("..", import.meta.url), "OpenTelemetry")).toBe("");
}, 40_000);

it("the README's prom-client example registers resil's families", () => {
  expect(runReadmeExample(new URL("..", import.meta.url), "prom-client")).toBe("true\n");
}, 40_000);
