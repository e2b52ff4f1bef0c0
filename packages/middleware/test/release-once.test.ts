import { EventEmitter } from "node:events";
import { expect, it } from "vitest";
import { type NodeResponse, releaseWhenDone } from "../src/index.js";

it("releases a slot exactly once, whichever of finish and close come and however often", () => {
  let releases = 0;
  const res = new EventEmitter() as unknown as NodeResponse & EventEmitter;
  releaseWhenDone(res, { release: () => releases++ });
  expect(releases).toBe(0);
  res.emit("finish");
  res.emit("close");
  res.emit("close");
  expect(releases).toBe(1);
  const aborted = new EventEmitter() as unknown as NodeResponse & EventEmitter;
  releaseWhenDone(aborted, { release: () => releases++ });
  aborted.emit("close"); // a client abort: no finish
  expect(releases).toBe(2);
});
