#!/usr/bin/env node
// The installed resil-sim command: runs the compiled CLI; npm links this file even before a build.
import("../dist/cli.js").catch((err) => {
  if (err?.code !== "ERR_MODULE_NOT_FOUND") throw err;
  process.stderr.write("resil-sim: not built yet; run `npm run build` at the repository root first\n");
  process.exitCode = 1;
});
