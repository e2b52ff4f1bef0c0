import { project } from "../../vitest.shared.js";

// Real redis-server processes: one file at a time, so timing-sensitive suites never share the CPU.
export default project("@resil/store-ioredis", {
  testTimeout: 120_000,
  hookTimeout: 60_000,
  fileParallelism: false,
});
