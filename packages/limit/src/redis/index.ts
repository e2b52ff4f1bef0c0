export { RedisCommandError } from "./errors.js";
export type { RedisCommand, RedisExec, RedisReply, RedisValue } from "./exec.js";
export { DEFAULT_KEYS_PER_CALL, RedisStore, type RedisStoreOptions } from "./redis-store.js";
