import { defaultServerConditions } from "vite";
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

/** One vitest project per workspace; tests import siblings from `src/` through the `source` condition. */
export function project(name: string, extra: UserWorkspaceConfig["test"] = {}) {
  return defineProject({
    resolve: { conditions: ["source", "module", "node", "import", "default"] },
    ssr: { resolve: { conditions: ["source", ...defaultServerConditions] } },
    // CPU-bound tests share 2 cores with the rest of the pass: a timeout is a hang guard, not a bound
    test: { name, include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000, ...extra },
  });
}
