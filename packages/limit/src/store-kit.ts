// @resil/limit/store: what a store adapter or a test kit needs beyond the Store interface: key
// layout, cluster slots, the Lua scripts and their replies, request validation and window maths.
export {
  concurrencyStoreKey,
  configHash,
  rateStoreKey,
  registryStoreKey,
  serviceTag,
  subjectTag,
} from "./cluster/keys.js";
export { keySlot } from "./redis/key-slot.js";
export { scriptSha } from "./redis/redis-store.js";
export { parseConcurrencyReply, parseHeartbeatReply, parseRateReply } from "./redis/reply.js";
export {
  CONCURRENCY_SCRIPT,
  type ConcurrencyScriptArg,
  type ConcurrencyScriptKey,
  HEARTBEAT_SCRIPT,
  type HeartbeatScriptArg,
  type HeartbeatScriptKey,
  type LuaScript,
  RATE_SCRIPT,
  type RateScriptArg,
  type RateScriptKey,
  SCRIPTS,
  scriptArgs,
} from "./redis/scripts.js";
export {
  apply,
  applyPast,
  COUNT_MAX,
  capacity,
  emptyWindow,
  free,
  keepSeen,
  resetMs,
  retryAfterMs,
  roll,
  saturatingAdd,
  usage,
  windowIndex,
} from "./store/algorithm.js";
export { FIXED_WINDOW, SLIDING_WINDOW, TOKEN_BUCKET } from "./store/algorithm-code.js";
export { type Grant, grantStep } from "./store/grant.js";
export {
  type NormalizeOptions,
  normalizeConcurrency,
  normalizeHeartbeat,
  normalizeRate,
  rateKeyTtlMs,
  toCount,
} from "./store/request.js";
