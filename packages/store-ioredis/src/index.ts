export { IoRedisExec, PipelineDiscardedError } from "./ioredis-exec.js";
