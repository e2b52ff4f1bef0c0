export {
  type NodeRedisClientLike,
  type NodeRedisClusterLike,
  NodeRedisExec,
  type NodeRedisNodeLike,
  SlotUnassignedError,
} from "./node-redis-exec.js";
