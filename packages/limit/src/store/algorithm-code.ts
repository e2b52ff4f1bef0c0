import type { AlgorithmCode } from "./types.js";

// The algorithms by name wherever code branches on them; the numbers are only the wire code the store
// (and the Lua scripts' ARGV) reads.
export const FIXED_WINDOW = 0 satisfies AlgorithmCode;
export const SLIDING_WINDOW = 1 satisfies AlgorithmCode;
export const TOKEN_BUCKET = 2 satisfies AlgorithmCode;
