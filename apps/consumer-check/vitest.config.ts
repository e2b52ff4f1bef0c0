import { project } from "../../vitest.shared.js";

export default project("@resil/consumer-check", { testTimeout: 240_000, hookTimeout: 600_000 });
