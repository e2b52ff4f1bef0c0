#!/usr/bin/env node
// resil-sim: the command-line entry (npx resil-sim, npm run sim).
import { limiterBackend } from "./limiter-backend.js";
import { main, processIo } from "./main.js";

main(process.argv.slice(2), processIo, limiterBackend).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `resil-sim: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 3;
  },
);
