export { NO_REDIS_MESSAGE, serverBinaries, which } from "./binary.js";
export { type ClusterOptions, type RedisClusterHandle, startCluster } from "./cluster.js";
export { type ClusterSeeds, describeClusterFailover } from "./cluster-failover.js";
export { describeClusterRedirects } from "./cluster-redirects.js";
export { commandCalls, DelayedExec } from "./delayed-exec.js";
export type { AdapterModule, ExecHandle, LimiterAdapter } from "./exec-handle.js";
export {
  FaultExec,
  type FaultRun,
  loadWithFaults,
  RIG_LIMIT,
  RIG_POLICY,
  type Rig,
  startRig,
} from "./fault-rig.js";
export { describeFaultScenarios } from "./fault-scenarios.js";
export { describeLimiterScenarios } from "./limiter-scenarios.js";
export {
  driveLoad,
  formatLoad,
  type LoadOptions,
  type LoadResult,
  mergeLoads,
  msUntilIntoSecond,
  percentile,
  type SecondCount,
} from "./load-driver.js";
export { expectLatencyWithin, LoopLateness, realTimeRetry } from "./loop-delay.js";
export {
  type ParityMismatch,
  type ParityOptions,
  type ParityReport,
  runParity,
  seededRandom,
} from "./parity.js";
export { freePort } from "./ports.js";
export { runReadmeExample } from "./readme-example.js";
export { ReplicaProcess } from "./replica-process.js";
export { describeReplicaProcessScenarios } from "./replica-process-scenarios.js";
export type {
  HoldResult,
  ReplicaConfig,
  ReplicaReplies,
  ReplicaRequest,
  ReplicaStatus,
} from "./replica-protocol.js";
export { forgetService, ping, rawCommand } from "./resp.js";
export { type RedisServer, type StartOptions, startRedis } from "./server.js";
export { describeSettleScenarios } from "./settle-scenarios.js";
export { describeShutdownScenarios } from "./shutdown-scenarios.js";
export { FIXED_50 } from "./spec-policies.js";
export { type AdapterUnderTest, describeStoreContract, HOSTILE_SUBJECTS } from "./store-contract.js";
