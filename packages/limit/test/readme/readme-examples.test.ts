// The README's tryAdmit, families and Pacer examples, run as written.

import { expect, it } from "vitest";
import { runReadmeBlock } from "./run-block.js";

it("README: tryAdmit pacing a replica's calls", () => {
  expect(runReadmeBlock("Calls")).toBe(
    "call the provider\ncall the provider\nover the shared provider limit\n",
  );
});

it("README: a family behind a node:http server", () => {
  expect(runReadmeBlock("Families: one policy for every client")).toBe("200\n200\n429\n");
});

it("README: Pacer waits, then times out", () => {
  expect(runReadmeBlock("Waiting for capacity (`Pacer`)")).toBe(
    "call the provider\ncall the provider\nno capacity within 200 ms\n",
  );
});
