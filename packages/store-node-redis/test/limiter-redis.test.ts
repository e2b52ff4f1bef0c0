import { fileURLToPath } from "node:url";
import { describeLimiterScenarios } from "@resil/testkit";
import { connect } from "./connect.js";

// The real-Redis Limiter scenarios (@resil/limit docs/protocol.md#s6, issue 5) through node-redis, in this process and in replica children.
describeLimiterScenarios({
  name: "node-redis",
  connect,
  module: fileURLToPath(new URL("./connect.ts", import.meta.url)),
});
