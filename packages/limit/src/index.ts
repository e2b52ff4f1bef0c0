// @resil/limit: what a user calls. Test helpers live in @resil/limit/testing, store internals
// (key layout, Lua scripts, window maths) in @resil/limit/store.
export type { Clock, Timer, TimerOptions } from "./clock/clock.js";
export { exactMonoMs, NEVER } from "./clock/clock.js";
export { CoarseClock, coarseClock } from "./clock/coarse-clock.js";
export { MANUAL_CLOCK_START_MS, ManualClock } from "./clock/manual-clock.js";
export { sleep } from "./clock/sleep.js";
export { SystemClock, systemClock } from "./clock/system-clock.js";
export * from "./cluster/index.js";
export * from "./local/index.js";
export * from "./redis/index.js";
export * from "./store/index.js";
export type {
  AlgorithmCode,
  ConcurrencyReply,
  ConcurrencyRequest,
  HeartbeatReply,
  HeartbeatRequest,
  RateReply,
  RateRequest,
  Release,
  RoundReply,
  RoundRequest,
  Store,
  WindowSpec,
  WindowState,
} from "./store/types.js";
