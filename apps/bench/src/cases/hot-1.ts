import { hotPath } from "../scenario.js";
import type { BenchCase } from "../types.js";

export const hot1: BenchCase = {
  name: "hot-1",
  title: "Hot path, 1 caller, one hot key",
  description: "one caller checking one key with limits per second, minute and hour (everything admitted)",
  run: (opts) => hotPath(opts, 1, "one"),
};
