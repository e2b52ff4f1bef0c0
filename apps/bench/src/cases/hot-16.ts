import { hotPath } from "../scenario.js";
import type { BenchCase } from "../types.js";

export const hot16: BenchCase = {
  name: "hot-16",
  title: "One hot key, 16 concurrent async callers",
  description:
    "16 async callers on one key; synchronous deciders yield every 64 decisions, async ones await each",
  run: (opts) => hotPath(opts, 1, "many"),
};
