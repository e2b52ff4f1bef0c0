export { NO_REDIS_MESSAGE, serverBinaries, which } from "./binary.js";
export { type RedisClusterHandle, startCluster } from "./cluster.js";
export { commandCalls, DelayedExec } from "./delayed-exec.js";
export {
  type ParityMismatch,
  type ParityOptions,
  type ParityReport,
  runParity,
  seededRandom,
} from "./parity.js";
export { freePort } from "./ports.js";
export { ping, rawCommand } from "./resp.js";
export { type RedisServer, type StartOptions, startRedis } from "./server.js";
export {
  type AdapterUnderTest,
  describeStoreContract,
  type ExecHandle,
  HOSTILE_SUBJECTS,
} from "./store-contract.js";
