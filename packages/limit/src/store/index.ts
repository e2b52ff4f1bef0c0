export {
  apply,
  applyPast,
  COUNT_MAX,
  capacity,
  emptyWindow,
  free,
  resetMs,
  retryAfterMs,
  roll,
  saturatingAdd,
  usage,
  windowIndex,
} from "./algorithm.js";
export { StoreReplyError, StoreRequestError, StoreUnavailableError } from "./errors.js";
export { type Grant, grantStep } from "./grant.js";
export { MemoryStore } from "./memory-store.js";
export {
  type NormalizeOptions,
  normalizeConcurrency,
  normalizeHeartbeat,
  normalizeRate,
  rateKeyTtlMs,
  toCount,
} from "./request.js";
