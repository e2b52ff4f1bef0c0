import { fileURLToPath } from "node:url";
import { describeFaultScenarios } from "@resil/testkit";
import { connect } from "./connect.js";

// Issue 15's store faults (slow, SIGSTOP, OOM, auth, kill + restart, unreachable, event-loop block,
// tuning-only republish) through ioredis, each on its own private redis-server.
describeFaultScenarios({
  name: "ioredis",
  connect,
  module: fileURLToPath(new URL("./connect.ts", import.meta.url)),
});
