import { fileURLToPath } from "node:url";
import { describeSettleScenarios } from "@resil/testkit";
import { connect } from "./connect.js";

// Reserve then settle (@resil/limit docs/protocol.md#s2-10, issue 17) on a real Redis through node-redis.
describeSettleScenarios({
  name: "node-redis",
  connect,
  module: fileURLToPath(new URL("./connect.ts", import.meta.url)),
});
