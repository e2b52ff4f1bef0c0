import { project } from "../../vitest.shared.js";

// One file at a time: each builds the workspaces and packs them, which must not race each other.
export default project("@resil/consumer-check", {
  testTimeout: 240_000,
  hookTimeout: 600_000,
  fileParallelism: false,
});
