export { NO_REDIS_MESSAGE, serverBinaries, which } from "./binary.js";
export { type RedisClusterHandle, startCluster } from "./cluster.js";
export { freePort } from "./ports.js";
export { ping, rawCommand } from "./resp.js";
export { type RedisServer, type StartOptions, startRedis } from "./server.js";
