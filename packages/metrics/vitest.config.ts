import { defaultServerConditions } from "vite";
import { defineProject } from "vitest/config";

// As vitest.shared's project(), without the "module" condition: @opentelemetry/api's "module" build has
// extensionless imports that only bundlers resolve.
export default defineProject({
  resolve: { conditions: ["source", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["source", ...defaultServerConditions.filter((c) => c !== "module")] } },
  test: { name: "@resil/metrics", include: ["test/**/*.test.ts"] },
});
