import { fileURLToPath } from "node:url";
import { describeShutdownScenarios } from "@resil/testkit";
import { connect } from "./connect.js";

// Shutdown of a replica with 100,000 keys (@resil/limit docs/protocol.md#s3-8) through ioredis.
describeShutdownScenarios({
  name: "ioredis",
  connect,
  module: fileURLToPath(new URL("./connect.ts", import.meta.url)),
});
