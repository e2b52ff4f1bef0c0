import { fileURLToPath } from "node:url";
import { describeLimiterScenarios } from "@resil/testkit";
import { connect } from "./connect.js";

// The real-Redis Limiter scenarios (@resil/limit docs/protocol.md#s6, issue 5) through ioredis, in this process and in replica children.
describeLimiterScenarios({
  name: "ioredis",
  connect,
  module: fileURLToPath(new URL("./connect.ts", import.meta.url)),
});
