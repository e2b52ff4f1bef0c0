import { hotPath } from "../scenario.js";
import type { BenchCase } from "../types.js";

export const keys10k: BenchCase = {
  name: "keys-10k",
  title: "10 000 keys x 3 windows, 16 callers",
  description: "16 async callers walking 10 000 keys, caller t at step i on key (7i + 13t) mod 10 000",
  run: (opts) => hotPath(opts, 10_000, "many"),
};
