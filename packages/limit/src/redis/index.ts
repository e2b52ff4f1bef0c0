export { RedisCommandError } from "./errors.js";
export type { RedisCommand, RedisExec, RedisReply, RedisValue } from "./exec.js";
export { RedisStore } from "./redis-store.js";
