export type { BreakerSignal, Verdict } from "./verdict.js";
