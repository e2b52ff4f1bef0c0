export { RedisCommandError } from "./errors.js";
export type { RedisCommand, RedisExec, RedisReply, RedisValue } from "./exec.js";
export { crc16, keySlot } from "./key-slot.js";
export { RedisStore, scriptSha } from "./redis-store.js";
export { parseConcurrencyReply, parseHeartbeatReply, parseRateReply } from "./reply.js";
export {
  CONCURRENCY_SCRIPT,
  type ConcurrencyArg,
  type ConcurrencyKey,
  HEARTBEAT_SCRIPT,
  type HeartbeatArg,
  type HeartbeatKey,
  type LuaScript,
  RATE_SCRIPT,
  type RateArg,
  type RateKey,
  SCRIPTS,
  scriptArgs,
} from "./scripts.js";
